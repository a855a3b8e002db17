import { publicUrl } from "../../channels/public-url.ts";
import { type Db, onCommit } from "../../core/db.ts";
import { enqueue } from "../../core/tasks.ts";
import { FlowSwitches, enqueueFlowTriggers, legacyId } from "../../providers/flow/enqueue.ts";
import { platformTitles } from "../../messaging/product-titles.ts";
import { countSend } from "../../metrics/registry.ts";
import type { Channel, Stage } from "../templates/default-templates.ts";
import { type BackInStockSettings, loadBackInStockSettings } from "../settings/settings.ts";
import { type AlertDeps, sendTask } from "./deps.ts";
import { sendAttemptsFor } from "../../messaging/retry.ts";
import type { BackInStockBlockedReason } from "../../messaging/blocked.ts";
import { loadShopInfo } from "../../account/shop-info.ts";
import { Renderer, stageSwitches } from "../templates/render.ts";
import { dressRendered, loadAccountMessaging } from "../../account/messaging.ts";
import { monthPeriod, periodKey, reserveSends } from "../../account/plans.ts";
import { senderPolicy } from "../../account/sending.ts";
import { type LeaseHolder, leaseDead, leaseTo, leasedTo } from "../../messaging/ledger/lease.ts";
import type { RetryPolicy } from "../../messaging/ledger/outcome.ts";
import {
  type MarkResult,
  type MessageLedger,
  type SendOptions as LedgerSendOptions,
  type SendSummary,
  sendClaimed,
} from "../../messaging/ledger/send.ts";

/**
 * THE BACK-IN-STOCK LEDGER (bis_ledger): one row per signup and stage, ever (unique (signup_id,
 * stage)). A message is claimed by inserting its row (`on conflict do nothing`) and committing
 * BEFORE it is sent; it is then sent and marked by the messaging pipeline
 * (src/messaging/ledger/send.ts: leases, per-message marks, retries through graphile-worker),
 * with this area's rows, refusals, quota, render and mark (backInStockLedger). A crash leaves the
 * row `pending`; whoever sends it later sends that same row, with the same message id. The
 * notifications log (the view bis_notification_log, sql/139) is served from the rows themselves,
 * one entry per message with its current status and attempts (bis_notifications, sql/134: the
 * final outcomes); only a refusal that claims no row is written to it (bis_notification_entries).
 */

/** Refusals the shop's settings and the signup decide (the messaging vocabulary: src/messaging/blocked.ts). */
type BlockedReason = Exclude<BackInStockBlockedReason, "plan_limit">;
/** What a send may also end blocked by, found only at send time: the plan's monthly quota is used up (src/account/plans.ts). */
type SendBlockedReason = BackInStockBlockedReason;

interface SignupFacts {
  status: string;
  channel: Channel;
  consent: boolean;
}

/** Why a stage may not be sent to this signup now, or undefined when it may. */
export function blockedReason(signup: SignupFacts, stage: Stage, settings: BackInStockSettings, switches: Record<Stage, boolean>): BlockedReason | undefined {
  if (signup.status === "unsubscribed") return "unsubscribed";
  if (!switches[stage]) return "stage_disabled";
  if (!settings.channels[signup.channel].enabled) return "channel_disabled";
  if (settings.compliance.opt_in_required && !signup.consent) return "opt_in_missing";
  return undefined;
}

/**
 * Claims `stage` for the given signups of the shop: inserts the ledger rows that do not exist
 * yet (pending) and answers their ids; a signup that already has the stage gets nothing. Claiming
 * `initial` also takes a waiting signup to pending (notified once the server accepts the alert).
 * Commit before sending.
 */
export async function claimStage(db: Db, shopId: string, signupIds: readonly string[], stage: Stage): Promise<{ id: string; signup_id: string }[]> {
  if (signupIds.length === 0) return [];
  const { rows } = await db.query<{ id: string; signup_id: string }>(
    `with claimed as (
       insert into bis_ledger (shop_id, signup_id, stage)
       select $1, s.id, $3 from bis_signups s where s.shop_id = $1 and s.id = any($2::uuid[])
       order by s.created_at, s.id
       on conflict (signup_id, stage) do nothing
       returning id, signup_id
     ), notified as (
       update bis_signups s set status = 'pending', last_error = null, updated_at = now()
       from claimed c where $3 = 'initial' and s.id = c.signup_id and s.status in ('waiting', 'failed')
     )
     select id, signup_id from claimed`,
    [shopId, signupIds, stage],
  );
  return rows;
}

/**
 * Takes the stage's messages that failed, or were refused at send, back to pending for the given
 * signups (a merchant's or an operator's resend): the same ledger row, so the same message id;
 * the signup reads pending again. Answers the ledger ids; queue their sends after.
 */
export async function reclaimFailed(db: Db, shopId: string, signupIds: readonly string[], stage: Stage): Promise<{ id: string; signup_id: string }[]> {
  if (signupIds.length === 0) return [];
  const { rows } = await db.query<{ id: string; signup_id: string }>(
    `with reclaimed as (
       update bis_ledger l set status = 'pending', lease_pid = null, lease_backend_start = null
       where l.shop_id = $1 and l.signup_id = any($2::uuid[]) and l.stage = $3 and l.status in ('failed', 'blocked')
       returning l.id, l.signup_id
     ), signups as (
       update bis_signups s set status = 'pending', updated_at = now()
       from reclaimed r where $3 = 'initial' and s.id = r.signup_id and s.status = 'failed'
     )
     select id, signup_id from reclaimed`,
    [shopId, signupIds, stage],
  );
  return rows;
}

/** A refusal that claims nothing (the stage stays available): only the notifications log records it. */
export async function logRefusal(
  db: Db,
  refusal: { shopId: string; signupId: string; variantId: string; stage: Stage; channel: Channel; reason: BlockedReason },
): Promise<void> {
  await db.query(
    `insert into bis_notification_entries (shop_id, signup_id, variant_id, stage, channel, status, blocked_reason)
     values ($1, $2, $3, $4, $5, 'blocked', $6)`,
    [refusal.shopId, refusal.signupId, refusal.variantId, refusal.stage, refusal.channel, refusal.reason],
  );
  onCommit(db, () => countSend("back_in_stock", refusal.channel, "blocked"));
}

/** A final refusal: the stage is claimed as `blocked` (never sent later), which logs it. Answers how many. */
export async function claimBlocked(db: Db, shopId: string, signupIds: readonly string[], stage: Stage, reason: BlockedReason): Promise<number> {
  if (signupIds.length === 0) return 0;
  const { rows } = await db.query<{ channel: string }>(
    `with claimed as (
       insert into bis_ledger (shop_id, signup_id, stage, status, last_error, logged_at)
       select $1, s.id, $3, 'blocked', $4, now() from bis_signups s where s.shop_id = $1 and s.id = any($2::uuid[])
       on conflict (signup_id, stage) do nothing
       returning signup_id
     )
     select s.channel from claimed c join bis_signups s on s.id = c.signup_id`,
    [shopId, signupIds, stage, reason],
  );
  onCommit(db, () => {
    for (const row of rows) countSend("back_in_stock", row.channel, "blocked");
  });
  return rows.length;
}

/**
 * Queues the send of one claimed row as its own job (on-demand sends, and retries): graphile-worker
 * retries it with its backoff for `maxAttempts` (sendAttemptsFor(SEND_RETRY_HOURS)).
 */
export async function queueSend(db: Db, ledgerId: string, options: { maxAttempts: number }): Promise<void> {
  await enqueue(db, sendTask, { ledger_id: ledgerId }, { jobKey: `${sendTask.name}:${ledgerId}`, maxAttempts: options.maxAttempts });
}

interface ShopContext {
  settings: BackInStockSettings;
  switches: Record<Stage, boolean>;
  /** Renders the shop's messages dressed with its sender identity and e-mail layout (src/account/messaging.ts). */
  renderer: Renderer;
}

/**
 * Per-shop settings, stage switches and renderer, loaded once: a run shares one across its
 * chunks, so a batch of thousands costs a handful of queries besides claim and mark.
 */
export class SendContexts {
  private readonly deps: AlertDeps;
  private readonly shops = new Map<string, Promise<ShopContext>>();

  constructor(deps: AlertDeps) {
    this.deps = deps;
  }

  get(shopId: string): Promise<ShopContext> {
    let context = this.shops.get(shopId);
    if (!context) {
      context = this.load(shopId);
      this.shops.set(shopId, context);
      context.catch(() => this.shops.delete(shopId));
    }
    return context;
  }

  private async load(shopId: string): Promise<ShopContext> {
    const { config, platform, pool: db } = this.deps;
    const settings = await loadBackInStockSettings(db, shopId);
    const switches = await stageSwitches(db, shopId);
    const shop = await loadShopInfo(db, shopId);
    const account = await loadAccountMessaging(db, shopId, { senders: senderPolicy(config), shopUrl: shop.url });
    const renderer = new Renderer(shop, {
      publicBaseUrl: publicUrl(config),
      unsubscribeSecret: platform.webhookSecret,
      emailFrom: config.EMAIL_FROM,
      titles: platformTitles(platform, this.deps.log),
      // Dressed as the shop sends them, then finished on the render pool (text part and MIME).
      dress: (message) => dressRendered(message, account),
    });
    return { settings, switches, renderer };
  }
}

/** A leased bis_ledger row, with its signup. */
export interface AlertRow {
  id: string;
  shop_id: string;
  signup_id: string;
  stage: Stage;
  attempts: number;
  /** The lease's holder (this sender's connection, by pid and start): the mark ends only a lease still its own. */
  lease_pid: number;
  lease_start: string;
  /** The month whose quota counter holds this message (YYYY-MM-DD), or null: not admitted yet. */
  quota_period: string | null;
  variant_id: string;
  channel: Channel;
  contact: string;
  locale: string;
  consent: boolean;
  first_name: string | null;
  signup_status: string;
}

type AlertResult = MarkResult<AlertRow, SendBlockedReason>;

/** The pipeline's view of bis_ledger; `contexts` is shared by the calls of one batch. */
export function backInStockLedger(deps: AlertDeps, contexts: SendContexts = new SendContexts(deps)): MessageLedger<AlertRow, SendBlockedReason, ShopContext> {
  // The shops' flow_triggers switches, read once for this sender's marks.
  const flowSwitches = new FlowSwitches();
  return {
    kind: "back_in_stock",
    table: "bis_ledger",
    quotaReason: "plan_limit",
    lease: leaseAlerts,
    queueSend: (db, id) => queueSend(db, id, { maxAttempts: sendAttemptsFor(deps.config.SEND_RETRY_HOURS) }),
    mark: (db, results) => markAlertResults(db, results, flowSwitches),
    loadShop: (shopId) => contexts.get(shopId),
    refusal: (row, { settings, switches }) =>
      blockedReason({ status: row.signup_status, channel: row.channel, consent: row.consent }, row.stage, settings, switches),
    admit: (shopId, rows) => admitAlerts(deps, shopId, rows),
    prepare: (rows, { renderer }, { priority }) => renderer.prepare(deps.pool, rows.map(recipient), { priority }),
    render: (row, { renderer }) => renderer.render(recipient(row)),
  };
}

/**
 * The plan's monthly quota (src/account/plans.ts): a row its batch's claim admitted keeps that;
 * the others are reserved on a short transaction of their own, and carry their month from then on
 * (the mark frees or counts it there).
 */
async function admitAlerts(deps: AlertDeps, shopId: string, rows: readonly AlertRow[]): Promise<ReadonlySet<string>> {
  const admitted = new Set(rows.filter((r) => r.quota_period !== null).map((r) => r.id));
  const fresh = rows.filter((r) => r.quota_period === null);
  if (fresh.length === 0) return admitted;
  const now = new Date();
  const reserved = await reserveSends(deps.pool, shopId, fresh.map((r) => r.id), now);
  for (const row of fresh) {
    if (!reserved.has(row.id)) continue;
    row.quota_period = periodKey(monthPeriod(now));
    admitted.add(row.id);
  }
  return admitted;
}

const recipient = (row: AlertRow) => ({
  ledgerId: row.id,
  signupId: row.signup_id,
  stage: row.stage,
  channel: row.channel,
  contact: row.contact,
  locale: row.locale,
  firstName: row.first_name,
  variantId: row.variant_id,
});

/** Sending options of back-in-stock calls: the pipeline's, and the per-shop contexts a batch shares. */
export interface SendOptions extends LedgerSendOptions {
  contexts?: SendContexts;
}

/**
 * Sends claimed (pending) ledger rows through the messaging pipeline (src/messaging/ledger/send.ts):
 * leased, refused (unsubscribed since the claim, channel or stage switched off, consent missing,
 * the plan's quota used up), rendered, sent at most SEND_CONCURRENCY at once and marked one by
 * one; a retryable failure is retried by graphile-worker (RetryPolicy).
 */
export async function sendLedgerRows(deps: AlertDeps, ledgerIds: readonly string[], policy: RetryPolicy, options: SendOptions = {}): Promise<SendSummary> {
  return sendClaimed(deps, backInStockLedger(deps, options.contexts), ledgerIds, policy, options);
}

/** A bis_ledger row under no live lease (`l`). */
export const LEASE_DEAD = leaseDead("l");

/**
 * The lease statement ($1: ledger ids, $2: the holder's pid); exported for its plan's test. A row
 * its claim wrote leased to this holder (claimChunk) is taken as it is, with no write.
 */
export const LEASE_ALERTS = `with pending as materialized (
       -- Each row by the primary key (lateral, kept so by its limit: one probe per id; the status
       -- test is written so that the partial indexes of pending rows cannot serve it): from them the
       -- planner, expecting few pending rows, read every entry, the dead ones of a long run
       -- included (15,000 for a chunk of 200), and a plain any() of the ids read the whole ledger.
       select l.id, l.shop_id, l.signup_id, l.stage, l.attempts, l.lease_pid, l.lease_backend_start::text as lease_start, l.quota_period::text,
              coalesce(${leasedTo("l", "$2")}, false) as held
       from unnest($1::uuid[]) as k(id)
       cross join lateral (select * from bis_ledger l where l.id = k.id and coalesce(l.status, '') = 'pending' limit 1) l
     ), leased as (
       update bis_ledger l set ${leaseTo("$2")}
       where l.id = any(array(select p.id from pending p where not p.held)) and coalesce(l.status, '') = 'pending' and ${LEASE_DEAD}
       returning l.id, l.shop_id, l.signup_id, l.stage, l.attempts, l.lease_pid, l.lease_backend_start::text as lease_start, l.quota_period::text
     )
     select l.id, l.shop_id, l.signup_id, l.stage, l.attempts, l.lease_pid, l.lease_start, l.quota_period, s.variant_id, s.channel, s.contact, s.locale, s.consent, s.first_name,
            s.status as signup_status
     from (select id, shop_id, signup_id, stage, attempts, lease_pid, lease_start, quota_period from pending where held union all select * from leased) l
     join bis_signups s on s.id = l.signup_id
     order by s.created_at, s.id`;

/** Leases the pending rows no live sender holds, to `holder`; answers them with their signups, oldest signup first (the order quota and sends follow). */
export async function leaseAlerts(db: Db, ledgerIds: readonly string[], holder: LeaseHolder): Promise<AlertRow[]> {
  // Not named: planned at each lease (one per chunk), for the ledger's size now. A connection's
  // kept plan, made on a small ledger, read the whole ledger at each lease once it had grown
  // (test/ledger-mark-plan-cache.test.ts).
  const { rows } = await db.query<AlertRow>(LEASE_ALERTS, [ledgerIds, holder.pid]);
  return rows;
}

/** The arrays of the outcomes, in the parameters' order of bis_alert_mark (sql/134_notifications_log_from_ledger.sql); exported for its plan's test. */
export function markAlertValues(results: readonly AlertResult[]): unknown[] {
  const column = <T>(of: (r: AlertResult) => T) => results.map(of);
  return [
    column((r) => r.row.id),
    column((r) => r.row.lease_pid),
    column((r) => r.row.lease_start),
    column((r) => r.outcome),
    column((r) => r.attempted),
    column((r) => r.row.shop_id),
    column((r) => r.row.signup_id),
    column((r) => r.row.variant_id),
    column((r) => r.row.stage),
    column((r) => r.row.channel),
    column((r) => r.provider_message_id ?? null),
    column((r) => r.error ?? null),
    column((r) => r.blocked_reason ?? null),
    column((r) => r.subject ?? null),
    column((r) => r.row.quota_period),
  ];
}

/**
 * Marks the outcomes in one statement, the function bis_alert_mark (sql/134_notifications_log_from_ledger.sql):
 * the ledger rows (their lease ends; a final outcome is logged on the row itself), the signups (an
 * `initial` accepted: notified; failed or refused: failed, with the reason; still retried: the last
 * error), the plan's counters (sent counted; a final outcome leaves its reservation, a
 * retry keeps it) and the reminder queue for `initial` messages sent. Then queues the Flow
 * triggers of the messages sent.
 */
export async function markAlertResults(db: Db, results: readonly AlertResult[], flowSwitches?: FlowSwitches): Promise<void> {
  if (results.length === 0) return;
  await db.query({
    name: "bis_alert_mark",
    text: "select bis_alert_mark($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
    values: markAlertValues(results),
  });
  // Flow triggers of the alerts and reminders sent (nothing queued unless the shop chose them).
  // After the mark, not in its statement: a crash between the two loses the trigger, never the mark.
  const sent = results.filter((r) => r.outcome === "sent" && (r.row.stage === "initial" || r.row.stage === "reminder"));
  if (sent.length > 0) {
    await enqueueFlowTriggers(
      db,
      sent.map(({ row }) => ({
        shopId: row.shop_id,
        trigger: row.stage === "initial" ? "back_in_stock_alert_sent" : "back_in_stock_reminder_sent",
        key: row.id,
        payload: { "Signup ID": row.signup_id, "Variant ID": legacyId(row.variant_id), Channel: row.channel, Locale: row.locale },
      })),
      flowSwitches,
    );
  }
}
