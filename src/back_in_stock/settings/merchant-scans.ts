import { z } from "zod";
import { withTransaction } from "../../core/db.ts";
import { declareTask, enqueue } from "../../core/tasks.ts";
import type { TaskContext } from "../../core/tasks.ts";
import { duePeriod } from "./alert-schedule.ts";
import { type AlertSettings, REPORT_EMAILS, loadAlertSettings } from "./alerts.ts";
import { claimMerchantMessages } from "./merchant-ledger.ts";

/**
 * What the worker's crontab does with the alert settings (decision 0247): the report scan finds
 * the shops whose scheduled report e-mails are due and queues one job per shop, report and period
 * (its job key names all three, so a tick that sees the period again joins the queued job); the
 * job claims the period's messages, once per recipient ever (the ledger's key). The alert scan
 * claims merchant alerts whose condition holds: a variant's waiting signups at the threshold, a
 * restock alert run that ended.
 */

/** A crontab task's payload: graphile-worker adds the tick's time (`_cron.ts`). */
export const cronPayload = z.looseObject({ _cron: z.looseObject({ ts: z.string() }).optional() }).nullish();
export const tickTime = (payload: z.output<typeof cronPayload>): Date => (payload?._cron?.ts ? new Date(payload._cron.ts) : new Date());

/** One shop's report of one period (job key `bis_report_email:<shop>:<kind>:<period>`). */
export const reportEmailTask = declareTask({
  name: "bis_report_email",
  payload: z.object({ shop_id: z.uuid(), kind: z.enum(REPORT_EMAILS), key: z.iso.date(), from: z.iso.datetime(), to: z.iso.datetime() }),
});

type Ctx = Pick<TaskContext, "pool" | "log">;

/**
 * Shops whose alert settings turn one of `paths` on (stored as true: every default is off, so a
 * shop that never set one has nothing to send), on an installed store.
 */
async function shopsWith(ctx: Ctx, paths: readonly string[][]): Promise<string[]> {
  const { rows } = await ctx.pool.query<{ shop_id: string }>(
    `select b.shop_id from bis_settings b join shops s on s.id = b.shop_id
     where s.platform_uninstalled_at is null and exists (select 1 from unnest($1::text[]) p where (b.alerts #>> p::text[]) = 'true')
     order by b.shop_id`,
    [paths.map((p) => `{${p.join(",")}}`)],
  );
  return rows.map((r) => r.shop_id);
}

/** The shop's alert settings, or undefined (logged) when they no longer validate: one shop never stops the scan. */
async function settingsOf(ctx: Ctx, shopId: string): Promise<AlertSettings | undefined> {
  try {
    return await loadAlertSettings(ctx.pool, shopId);
  } catch (error) {
    ctx.log.warn({ shopId, error: error instanceof Error ? error.message : String(error) }, "alert settings skipped: they do not load");
    return undefined;
  }
}

/** Crontab: queues the report e-mails due at `now`. Answers how many jobs it queued. */
export async function scheduleReportEmails(ctx: Ctx, now: Date): Promise<{ queued: number }> {
  let queued = 0;
  for (const shopId of await shopsWith(ctx, REPORT_EMAILS.map((kind) => [kind, "enabled"]))) {
    const settings = await settingsOf(ctx, shopId);
    if (!settings) continue;
    for (const kind of REPORT_EMAILS) {
      const period = duePeriod(kind, settings, now);
      if (!period) continue;
      const { rows } = await ctx.pool.query("select 1 from bis_merchant_messages where shop_id = $1 and kind = $2 and event_key = $3 limit 1", [shopId, kind, period.key]);
      if (rows.length > 0) continue; // claimed already: sent, or on its way
      await enqueue(
        ctx.pool,
        reportEmailTask,
        { shop_id: shopId, kind, key: period.key, from: period.from.toISOString(), to: period.to.toISOString() },
        { jobKey: `${reportEmailTask.name}:${shopId}:${kind}:${period.key}`, jobKeyMode: "preserve_run_at", maxAttempts: 5 },
      );
      queued += 1;
    }
  }
  return { queued };
}

/** The per-shop job: claims the period's message for each recipient the report has now (none when it was switched off). */
export async function runReportEmail(ctx: Pick<TaskContext, "pool">, p: z.output<typeof reportEmailTask.payload>): Promise<{ claimed: number }> {
  return withTransaction(ctx.pool, async (db) => {
    const settings = await loadAlertSettings(db, p.shop_id);
    const report = settings[p.kind];
    if (!report.enabled) return { claimed: 0 };
    const context = { from: p.from, to: p.to, time_zone: settings.time_zone, ...(p.kind === "weekly_csv" ? { report: settings.weekly_csv.report } : {}) };
    const ids = await claimMerchantMessages(db, { shopId: p.shop_id, kind: p.kind, eventKey: p.key, recipients: report.recipients, context });
    return { claimed: ids.length };
  });
}

/** How far back a run's end is still told (a worker down for longer loses those alerts, not a flood on enabling). */
const RUN_LOOKBACK_MINUTES = 60;

/** Crontab: merchant alerts whose condition holds at `now`. Answers how many messages it claimed. */
export async function scanMerchantAlerts(ctx: Ctx, now: Date): Promise<{ claimed: number }> {
  let claimed = 0;
  const shops = await shopsWith(ctx, [
    ["merchant_alerts", "signup_threshold", "enabled"],
    ["merchant_alerts", "alert_run_finished", "enabled"],
  ]);
  for (const shopId of shops) {
    const settings = await settingsOf(ctx, shopId);
    if (!settings) continue;
    const { recipients, signup_threshold: threshold, alert_run_finished: runs } = settings.merchant_alerts;
    if (recipients.length === 0) continue;
    claimed += await withTransaction(ctx.pool, async (db) => {
      let n = 0;
      if (threshold.enabled) {
        // One alert per variant and restock epoch: the count of its alert runs re-arms it after each.
        const { rows } = await db.query<{ variant_id: string; waiting: number; runs: number; product_title: string | null; variant_title: string | null }>(
          `with w as (
             select s.variant_id, count(*)::int as waiting from bis_signups s
             where s.shop_id = $1 and s.status = 'waiting' group by s.variant_id having count(*) >= $2
           ), e as (
             select w.*, (select count(*)::int from bis_alert_runs r where r.shop_id = $1 and r.variant_id = w.variant_id) as runs from w
           )
           select e.variant_id, e.waiting, e.runs, p.title as product_title, v.title as variant_title
           from e
           left join variants v on v.shop_id = $1 and v.id = e.variant_id
           left join products p on p.shop_id = $1 and p.id = v.product_id
           where not exists (select 1 from bis_merchant_messages m where m.shop_id = $1 and m.kind = 'signup_threshold'
                             and m.event_key = 'variant:' || e.variant_id || ':runs:' || e.runs)
           order by e.waiting desc, e.variant_id
           limit 100`,
          [shopId, threshold.threshold],
        );
        for (const r of rows) {
          const context = { variant_id: r.variant_id, waiting: r.waiting, threshold: threshold.threshold, product_title: r.product_title, variant_title: r.variant_title };
          n += (await claimMerchantMessages(db, { shopId, kind: "signup_threshold", eventKey: `variant:${r.variant_id}:runs:${r.runs}`, recipients, context })).length;
        }
      }
      if (runs.enabled) {
        const { rows } = await db.query<{ id: string; variant_id: string; status: string; stop_reason: string | null; notified: number; batches: number; product_title: string | null; variant_title: string | null }>(
          `select r.id, r.variant_id, r.status, r.stop_reason, r.notified, r.batches, p.title as product_title, v.title as variant_title
           from bis_alert_runs r
           left join variants v on v.shop_id = $1 and v.id = r.variant_id
           left join products p on p.shop_id = $1 and p.id = v.product_id
           where r.shop_id = $1 and r.status <> 'running'
             and r.finished_at > $2::timestamptz - make_interval(mins => $3) and r.finished_at <= $2::timestamptz
             and not exists (select 1 from bis_merchant_messages m where m.shop_id = $1 and m.kind = 'alert_run_finished' and m.event_key = 'run:' || r.id)
           order by r.finished_at, r.id
           limit 100`,
          [shopId, now.toISOString(), RUN_LOOKBACK_MINUTES],
        );
        for (const r of rows) {
          const context = { run_id: r.id, variant_id: r.variant_id, status: r.status, stop_reason: r.stop_reason, notified: r.notified, batches: r.batches, product_title: r.product_title, variant_title: r.variant_title };
          n += (await claimMerchantMessages(db, { shopId, kind: "alert_run_finished", eventKey: `run:${r.id}`, recipients, context })).length;
        }
      }
      return n;
    });
  }
  return { claimed };
}
