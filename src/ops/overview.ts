import type { Db } from "../core/db.ts";
import { countFailedMessages } from "../messaging/failed.ts";
import { esc, when } from "./html.ts";
import { type QueueDepth, queueDepthByTask } from "../queue/inspect.ts";
import { QUEUE_RELATIONS } from "../queue/relations.ts";
import { workSince } from "./work.ts";

interface Overview {
  queue_depth: QueueDepth[];
  throughput: { kind: string; task: string; completed_5m: number; failed_5m: number; completed_60m: number; failed_60m: number }[];
  alert_runs: { id: string; shop_name: string | null; variant_id: string; batches: number; notified: number; last_available: number | null; started_at: Date; next_batch_at: Date | null }[];
  offer_syncs: { counts: Record<string, number>; failing: { id: string; shop_name: string | null; name: string; sync_last_error: string | null; updated_at: Date }[] };
  webhook_lag: { unprocessed: number; oldest_unprocessed_at: Date | null; oldest_unprocessed_seconds: number | null; p50_seconds: number | null; max_seconds: number | null; processed_last_hour: number };
  /** Per target (an e-mail provider, commerce_platform): syncs failed for good, and those failing now and being retried. */
  failing_providers: { target: string; failed: number; retrying: number; last_error: string | null; last_failed_at: Date }[];
  /** Messages of both areas that failed for good (the failed-messages view, /ops/messages). */
  failed_messages: number;
}

const n = (v: unknown): number => Number(v ?? 0);

export async function loadOverview(db: Db): Promise<Overview> {
  const [depth, throughput, runs, syncCounts, failing, lag, providers, failedMessages] = await Promise.all([
    queueDepthByTask(db),
    // Every kind of work (src/ops/work.ts): queue jobs' runs as the worker recorded them, app
    // jobs, sends, provider syncs and offer syncs; a failure is a run that threw or a thing
    // that failed for good.
    db.query<Overview["throughput"][number]>(
      `select kind, task,
         count(*) filter (where ok and at > now() - interval '5 minutes')::int as completed_5m,
         count(*) filter (where not ok and at > now() - interval '5 minutes')::int as failed_5m,
         count(*) filter (where ok)::int as completed_60m,
         count(*) filter (where not ok)::int as failed_60m
       from (${workSince("now() - interval '60 minutes'")}) t group by 1, 2 order by 1, 2`,
    ),
    db.query<Overview["alert_runs"][number]>(
      `select r.id, s.name as shop_name, r.variant_id, r.batches, r.notified, r.last_available, r.started_at, r.next_batch_at
       from bis_alert_runs r left join shops s on s.id = r.shop_id where r.status = 'running' order by r.started_at limit 100`,
    ),
    db.query<{ sync_status: string; count: number }>(`select sync_status, count(*)::int as count from preorder_offers group by 1`),
    db.query<Overview["offer_syncs"]["failing"][number]>(
      `select o.id, s.name as shop_name, o.name, o.sync_last_error, o.updated_at from preorder_offers o left join shops s on s.id = o.shop_id
       where o.sync_status = 'failed' order by o.updated_at desc limit 50`,
    ),
    db.query<Record<string, unknown>>(
      `select
         (select count(*) from webhook_deliveries where processed_at is null)::int as unprocessed,
         (select min(received_at) from webhook_deliveries where processed_at is null) as oldest_unprocessed_at,
         (select extract(epoch from now() - min(received_at)) from webhook_deliveries where processed_at is null)::float8 as oldest_unprocessed_seconds,
         percentile_cont(0.5) within group (order by extract(epoch from processed_at - received_at))::float8 as p50_seconds,
         max(extract(epoch from processed_at - received_at))::float8 as max_seconds,
         count(*)::int as processed_last_hour
       from webhook_deliveries where processed_at > now() - interval '1 hour'`,
    ),
    // A provider answering 5xx, timing out or unreachable leaves its syncs pending with the error
    // while graphile-worker retries them for days: counted as retrying, not only once they fail for
    // good. Platform calls failing (PlatformError: "Platform <operation> failed ...") are the queue
    // rows carrying one; the customer tag is counted from its sync rows instead.
    db.query<Overview["failing_providers"][number]>(
      `select target, sum(failed)::int as failed, sum(retrying)::int as retrying,
         (array_agg(last_error order by at desc))[1] as last_error, max(at) as last_failed_at
       from (
         select target, (status = 'failed')::int as failed, (status = 'pending')::int as retrying, last_error, updated_at as at
         from signup_syncs where status = 'failed' or (status = 'pending' and last_error is not null)
         union all
         select 'commerce_platform', (attempts >= max_attempts)::int, (attempts < max_attempts)::int, last_error, updated_at
         from ${QUEUE_RELATIONS.jobs} where last_error like 'Platform %' and task_identifier <> 'bis_tag_customer'
       ) f group by target order by target`,
    ),
    countFailedMessages(db),
  ]);
  const counts: Record<string, number> = { pending: 0, synced: 0, failed: 0 };
  for (const row of syncCounts.rows) counts[row.sync_status] = row.count;
  const l = lag.rows[0] ?? {};
  return {
    queue_depth: depth,
    throughput: throughput.rows,
    alert_runs: runs.rows,
    offer_syncs: { counts, failing: failing.rows },
    webhook_lag: {
      unprocessed: n(l.unprocessed),
      oldest_unprocessed_at: (l.oldest_unprocessed_at as Date | null) ?? null,
      oldest_unprocessed_seconds: l.oldest_unprocessed_seconds == null ? null : n(l.oldest_unprocessed_seconds),
      p50_seconds: l.p50_seconds == null ? null : n(l.p50_seconds),
      max_seconds: l.max_seconds == null ? null : n(l.max_seconds),
      processed_last_hour: n(l.processed_last_hour),
    },
    failing_providers: providers.rows,
    failed_messages: failedMessages,
  };
}

const secs = (v: number | null) => (v === null ? "-" : `${v.toFixed(1)} s`);

function table(id: string, headers: string[], rows: { task?: string; cells: unknown[] }[], empty: string): string {
  const head = `<thead><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead>`;
  const body = rows.length
    ? rows.map((r) => `<tr${r.task === undefined ? "" : ` data-task="${esc(r.task)}"`}>${r.cells.map((c) => `<td>${c instanceof Date ? when(c) : c === null ? "-" : esc(c)}</td>`).join("")}</tr>`).join("\n")
    : `<tr class="empty"><td colspan="${headers.length}">${esc(empty)}</td></tr>`;
  return `<table${id ? ` id="${id}"` : ""}>${head}<tbody>${body}</tbody></table>`;
}

export function renderOverview(o: Overview): string {
  const w = o.webhook_lag;
  return `<section id="failed-messages-section"><h2>Failed messages</h2>
<p><a id="failed-messages-link" href="/ops/messages"><span class="count">${esc(o.failed_messages)}</span> message(s) failed for good</a> (back-in-stock alerts and preorder notifications, with their reasons; retry them there).</p>
</section>
<section id="queue"><h2>Queue depth per task</h2>
${table("queue-depth", ["task", "ready", "scheduled", "running", "failed"], o.queue_depth.map((r) => ({ task: r.task, cells: [r.task, r.ready, r.scheduled, r.running, r.failed] })), "The queue is empty.")}
</section>
<section id="throughput-section"><h2>Throughput per task</h2>
${table("throughput", ["kind", "task", "processed 5 min", "failed 5 min", "processed 60 min", "failed 60 min"], o.throughput.map((r) => ({ task: r.task, cells: [r.kind, r.task, r.completed_5m, r.failed_5m, r.completed_60m, r.failed_60m] })), "Nothing finished in the last hour.")}
</section>
<section id="alert-runs"><h2>Back-in-stock alert runs in progress</h2>
${table("", ["run", "shop", "variant", "batches", "notified", "last available", "started", "next batch"], o.alert_runs.map((r) => ({ cells: [r.id, r.shop_name, r.variant_id, r.batches, r.notified, r.last_available ?? "-", r.started_at, r.next_batch_at] })), "No alert run in progress.")}
</section>
<section id="offer-syncs"><h2>Preorder offer syncs</h2>
<p>pending: <span class="count" data-sync="pending">${esc(o.offer_syncs.counts.pending ?? 0)}</span>, synced: <span class="count" data-sync="synced">${esc(o.offer_syncs.counts.synced ?? 0)}</span>, failed: <span class="count" data-sync="failed">${esc(o.offer_syncs.counts.failed ?? 0)}</span></p>
${table("", ["offer", "shop", "name", "last error", "updated"], o.offer_syncs.failing.map((r) => ({ cells: [r.id, r.shop_name, r.name, r.sync_last_error, r.updated_at] })), "No failing offer sync.")}
</section>
<section id="webhook-lag"><h2>Platform webhook intake</h2>
<p>Unprocessed: ${esc(w.unprocessed)}; oldest unprocessed received ${when(w.oldest_unprocessed_at)} (${esc(secs(w.oldest_unprocessed_seconds))} ago).
Last hour (${esc(w.processed_last_hour)} processed): received → processed p50 ${esc(secs(w.p50_seconds))}, max ${esc(secs(w.max_seconds))}.</p>
</section>
<section id="failing-providers"><h2>Failing providers</h2>
${table("failing-providers-table", ["target", "failed for good", "failing, retrying", "last error", "last failure"], o.failing_providers.map((r) => ({ task: r.target, cells: [r.target, r.failed, r.retrying, r.last_error, r.last_failed_at] })), "No failing provider.")}
</section>`;
}
