import { stringify } from "csv-stringify/sync";
import { z } from "zod";
import type { OutboundMessage } from "../../channels/index.ts";
import type { Db } from "../../core/db.ts";
import { declareTask, enqueue } from "../../core/tasks.ts";
import type { TaskContext } from "../../core/tasks.ts";
import { type ShopInfo, loadShopInfo } from "../../account/shop-info.ts";
import { csvText } from "../../exports/csv-text.ts";
import type { BackInStockBlockedReason } from "../../messaging/blocked.ts";
import { type LeaseHolder, leaseDead, leaseTo } from "../../messaging/ledger/lease.ts";
import { isLastAttempt } from "../../messaging/ledger/outcome.ts";
import { type LedgerRecovery, recoverLedger } from "../../messaging/ledger/recover.ts";
import { type LedgerDeps, type MarkResult, type MessageLedger, sendClaimed } from "../../messaging/ledger/send.ts";
import { MAX_SEND_RETRY_HOURS, sendAttemptsFor } from "../../messaging/retry.ts";
import { REPORTS, type ReportName, reportTable, summaryReport } from "../reports/report-queries.ts";
import { type AlertSettings, type MerchantMessageKind, kindEnabled, kindRecipients, loadAlertSettings } from "./alerts.ts";

/**
 * THE MERCHANT LEDGER (bis_merchant_messages, decision 0247): the back-in-stock e-mails to the
 * merchant's own recipients, scheduled reports and merchant alerts. A claim inserts one row per
 * recipient and event (`on conflict do nothing`: a period, a threshold crossing or a run's end is
 * claimed once per recipient, ever) and queues the row's send job in the same transaction; the
 * job sends it through the messaging pipeline (src/messaging/ledger/send.ts: leased, sent with
 * the row's id in its message id, marked sent, failed with the reason or blocked; a retryable
 * failure is recorded and retried with graphile-worker's backoff for SEND_RETRY_HOURS). A crash
 * between the send and its mark sends that one message again, with the same Message-ID.
 */

/** One claimed merchant message (job key `bis_merchant_message_send:<id>`). */
export const merchantSendTask = declareTask({ name: "bis_merchant_message_send", payload: z.object({ message_id: z.uuid() }) });

/** Crontab: rows left pending by a send job that is gone or ran out of attempts. */
export const merchantRecoverTask = declareTask({
  name: "bis_merchant_message_recover",
  payload: z.object({ grace_seconds: z.number().min(0).optional() }).nullish(),
});

/** Enough attempts for the longest SEND_RETRY_HOURS; the configured window ends them sooner (isLastAttempt). */
const MAX_ATTEMPTS = sendAttemptsFor(MAX_SEND_RETRY_HOURS);
/** A merchant message pending this long with no send job is failed (a report a day late is news no more). */
const MAX_PENDING_HOURS = 24;

/** What a row says about its message (the context column). */
export type MerchantContext =
  | { from: string; to: string; time_zone: string; report?: ReportName }
  | { variant_id: string; waiting: number; threshold: number; product_title: string | null; variant_title: string | null }
  | { run_id: string; variant_id: string; status: string; stop_reason: string | null; notified: number; batches: number; product_title: string | null; variant_title: string | null };

/**
 * Claims the message for each recipient (already claimed ones are left as they are) and queues
 * their sends in the caller's transaction. Answers the ids claimed now.
 */
export async function claimMerchantMessages(
  db: Db,
  spec: { shopId: string; kind: MerchantMessageKind; eventKey: string; recipients: readonly string[]; context: MerchantContext },
): Promise<string[]> {
  if (spec.recipients.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `insert into bis_merchant_messages (shop_id, kind, event_key, recipient, context)
     select $1, $2, $3, r, $5::jsonb from unnest($4::text[]) r
     on conflict (shop_id, kind, event_key, recipient) do nothing
     returning id`,
    [spec.shopId, spec.kind, spec.eventKey, [...new Set(spec.recipients.map((r) => r.toLowerCase()))], JSON.stringify(spec.context)],
  );
  for (const { id } of rows) await queueMerchantSend(db, id);
  return rows.map((r) => r.id);
}

async function queueMerchantSend(db: Db, id: string): Promise<void> {
  await enqueue(db, merchantSendTask, { message_id: id }, { jobKey: `${merchantSendTask.name}:${id}`, maxAttempts: MAX_ATTEMPTS });
}

interface MerchantRow {
  id: string;
  shop_id: string;
  channel: "email";
  kind: MerchantMessageKind;
  event_key: string;
  recipient: string;
  context: Record<string, unknown>;
}

interface ShopContext {
  shop: ShopInfo;
  settings: AlertSettings;
}

type Reason = Extract<BackInStockBlockedReason, "stage_disabled">;

/** The message id of a row: deterministic, as every ledger's. */
export const merchantMessageId = (id: string): string => `bis-merchant-${id}`;

/** The pipeline's view of bis_merchant_messages. */
export function merchantLedger(deps: LedgerDeps): MessageLedger<MerchantRow, Reason, ShopContext> {
  return {
    kind: "back_in_stock",
    table: "bis_merchant_messages",
    lease: leaseMerchantMessages,
    mark: markMerchantMessages,
    queueSend: queueMerchantSend,
    async loadShop(shopId) {
      const [shop, settings] = await Promise.all([loadShopInfo(deps.pool, shopId), loadAlertSettings(deps.pool, shopId)]);
      return { shop, settings };
    },
    // Switched off, or the recipient taken off its list, since the claim: not sent.
    refusal: (row, { settings }) =>
      kindEnabled(settings, row.kind) && kindRecipients(settings, row.kind).some((r) => r.toLowerCase() === row.recipient) ? undefined : "stage_disabled",
    render: (row, { shop }) => renderMerchantMessage(deps.pool, row, shop),
  };
}

async function leaseMerchantMessages(db: Db, ids: readonly string[], holder: LeaseHolder): Promise<MerchantRow[]> {
  const { rows } = await db.query<MerchantRow>(
    `update bis_merchant_messages m set ${leaseTo("$2")}
     where m.id = any($1::uuid[]) and m.status = 'pending' and ${leaseDead("m")}
     returning m.id, m.shop_id, m.channel, m.kind, m.event_key, m.recipient, m.context`,
    [ids, holder.pid],
  );
  return rows;
}

async function markMerchantMessages(db: Db, results: readonly MarkResult<Pick<MerchantRow, "id">, Reason>[]): Promise<void> {
  if (results.length === 0) return;
  const flat = results.map(({ row, outcome, attempted, error, blocked_reason, provider_message_id }) => ({
    id: row.id,
    outcome,
    attempted,
    error: outcome === "failed" || outcome === "retry" ? (error ?? null) : null,
    blocked_reason: outcome === "blocked" ? (blocked_reason ?? null) : null,
    provider_message_id: outcome === "sent" ? (provider_message_id ?? null) : null,
  }));
  await db.query(
    `update bis_merchant_messages m set
       status = case when r.outcome = 'retry' then 'pending' else r.outcome end,
       attempts = m.attempts + case when r.attempted then 1 else 0 end,
       blocked_reason = r.blocked_reason, last_error = coalesce(r.error, m.last_error),
       provider_message_id = coalesce(r.provider_message_id, m.provider_message_id),
       sent_at = case when r.outcome = 'sent' then now() else m.sent_at end, updated_at = now(),
       lease_pid = null, lease_backend_start = null
     from jsonb_to_recordset($1::jsonb) as r(id uuid, outcome text, attempted boolean, error text, blocked_reason text, provider_message_id text)
     where m.id = r.id and m.status = 'pending'`,
    [JSON.stringify(flat)],
  );
}

/**
 * Sends one pending merchant message (its job) and marks it; throws after recording a retryable
 * failure, so graphile-worker retries the job, until the last attempt of SEND_RETRY_HOURS fails it
 * with the reason.
 */
export async function sendMerchantMessage(ctx: TaskContext, id: string): Promise<string> {
  const summary = await sendClaimed(ctx, merchantLedger(ctx), [id], { mode: "throw", lastAttempt: isLastAttempt(ctx, ctx.config.SEND_RETRY_HOURS) });
  if (summary.skipped > 0) return "skipped";
  return summary.sent > 0 ? "sent" : summary.blocked > 0 ? "blocked" : "failed";
}

/** The recovery sweep of the merchant ledger (as every ledger's: src/messaging/ledger/recover.ts). */
export function recoverMerchantMessages(ctx: Pick<TaskContext, "pool" | "channels" | "config">, graceSeconds: number): Promise<LedgerRecovery> {
  return recoverLedger(ctx, merchantLedger(ctx), { sendTask: merchantSendTask.name, ageColumn: "updated_at", maxPendingHours: MAX_PENDING_HOURS }, { graceSeconds });
}

// ---- the messages ----

const REPORT_TITLES: Record<ReportName, string> = {
  summary: "summary",
  signups: "signups",
  notifications: "notifications",
  conversions: "conversions",
  products_in_demand: "products in demand",
};

const reportContext = z.object({ from: z.string(), to: z.string(), time_zone: z.string(), report: z.enum(REPORTS).optional() });
const thresholdContext = z.object({ variant_id: z.string(), waiting: z.number(), threshold: z.number(), product_title: z.string().nullable(), variant_title: z.string().nullable() });
const runContext = z.object({
  run_id: z.string(),
  variant_id: z.string(),
  status: z.string(),
  stop_reason: z.string().nullable(),
  notified: z.number(),
  batches: z.number(),
  product_title: z.string().nullable(),
  variant_title: z.string().nullable(),
});

const variantName = (c: { product_title: string | null; variant_title: string | null; variant_id: string }): string =>
  [c.product_title, c.variant_title && c.variant_title !== "Default Title" ? c.variant_title : null].filter(Boolean).join(" - ") || c.variant_id;

const STOP_REASONS: Record<string, string> = {
  out_of_stock: "the variant went out of stock (or below the minimum restock quantity)",
  stage_disabled: "the initial alert stage is switched off",
};

function periodLine(kind: MerchantMessageKind, key: string, tz: string): string {
  return kind === "daily_summary" ? `${key} (${tz})` : `the 7 days from ${key} (${tz})`;
}

/** The row's e-mail: plain text (and the CSV attached for weekly_csv), figures read at the send. */
export async function renderMerchantMessage(db: Db, row: MerchantRow, shop: ShopInfo): Promise<OutboundMessage> {
  const base = { id: merchantMessageId(row.id), channel: "email" as const, to: row.recipient };
  const footer = `\n\n-- \nSent by the back-in-stock app to the recipients of ${shop.name}'s alert settings (GET /back_in_stock/settings/alerts).`;
  switch (row.kind) {
    case "daily_summary":
    case "weekly_summary": {
      const c = reportContext.parse(row.context);
      const s = await summaryReport(db, row.shop_id, { from: new Date(c.from), to: new Date(c.to) });
      const when = periodLine(row.kind, row.event_key, c.time_zone);
      const lines = [
        `Back-in-stock ${row.kind === "daily_summary" ? "daily" : "weekly"} summary of ${shop.name} for ${when}.`,
        "",
        `Signups: ${s.signups}`,
        `Still waiting: ${s.pending}`,
        `Notified: ${s.notified}`,
        `Conversions: ${s.conversions} (conversion rate ${(s.conversion_rate * 100).toFixed(2)}%)`,
        `Unsubscribed: ${s.unsubscribed}`,
        `Recovered revenue: ${s.recovered_revenue.toFixed(2)}`,
        "",
        "The figures are of the signups created in the period, as they stand now (GET /back_in_stock/reports/summary).",
      ];
      return { ...base, subject: `${shop.name}: back-in-stock ${row.kind === "daily_summary" ? "daily" : "weekly"} summary, ${when}`, text: lines.join("\n") + footer };
    }
    case "weekly_csv": {
      const c = reportContext.parse(row.context);
      const report = c.report ?? "products_in_demand";
      const table = await reportTable(db, row.shop_id, report, { from: c.from, to: c.to });
      const csv = stringify([[...table.columns], ...table.rows.map((r) => table.columns.map((col) => csvCell(r[col])))]);
      const filename = `back-in-stock-${report.replace(/_/g, "-")}-${row.event_key}.csv`;
      const when = periodLine(row.kind, row.event_key, c.time_zone);
      return {
        ...base,
        subject: `${shop.name}: back-in-stock ${REPORT_TITLES[report]} report, ${when}`,
        text: `The back-in-stock ${REPORT_TITLES[report]} report of ${shop.name} for ${when} is attached as ${filename} (${table.rows.length} rows).${footer}`,
        attachments: [{ filename, contentType: "text/csv; charset=utf-8", content: csv }],
      };
    }
    case "signup_threshold": {
      const c = thresholdContext.parse(row.context);
      const name = variantName(c);
      return {
        ...base,
        subject: `${shop.name}: ${c.waiting} customers are waiting for ${name}`,
        text: `${c.waiting} customers are waiting for ${name} (variant ${c.variant_id}) to be back in stock: the threshold of ${c.threshold} in your alert settings is reached. Restocking it alerts them.${footer}`,
      };
    }
    case "alert_run_finished": {
      const c = runContext.parse(row.context);
      const name = variantName(c);
      const how = c.status === "completed" ? "completed: every waiting signup was alerted" : `stopped: ${STOP_REASONS[c.stop_reason ?? ""] ?? c.stop_reason ?? "unknown reason"}`;
      return {
        ...base,
        subject: `${shop.name}: restock alerts for ${name} ${c.status === "completed" ? "completed" : "stopped"}`,
        text: `The restock alert run of ${name} (variant ${c.variant_id}) ${how}.\n\nAlerted: ${c.notified} signups in ${c.batches} batches.\nRun: ${c.run_id}${footer}`,
      };
    }
  }
}

function csvCell(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "string") return csvText(value);
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  return csvText(JSON.stringify(value));
}
