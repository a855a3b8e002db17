import type { OutboundMessage } from "../../channels/index.ts";
import { isChannelError } from "../../channels/index.ts";
import { publicUrl } from "../../channels/public-url.ts";
import type pg from "pg";
import pLimit, { type LimitFunction } from "p-limit";
import { type Db, onCommit, withTransaction } from "../../core/db.ts";
import { enqueue } from "../../core/tasks.ts";
import { countSend } from "../../metrics/registry.ts";
import type { Channel, Stage } from "../templates/default-templates.ts";
import { type BackInStockSettings, loadBackInStockSettings } from "../settings/settings-store.ts";
import { type AlertDeps, sendTask } from "./deps.ts";
import { gaveUpReason, sendAttemptsFor } from "../../messaging/retry.ts";
import type { BackInStockBlockedReason } from "../../messaging/blocked.ts";
import { Renderer, loadShopInfo, stageSwitches } from "../templates/render.ts";
import { type AccountMessaging, dressMessage, loadAccountMessaging } from "../../account/messaging.ts";
import { reserveSends } from "../../account/plans.ts";
import { senderPolicy } from "../../account/sending.ts";

/**
 * THE LEDGER. One row per signup and stage, ever (unique (signup_id, stage)): a message is
 * claimed by inserting its row (`on conflict do nothing`) and committing BEFORE it is sent, sent
 * with the row's id as its message id, and marked sent / failed / blocked after. A crash between
 * the two leaves the row `pending`; whoever sends it later (the recovery sweep, a retry job) sends
 * that same row, with the same message id: never a new row. Every final outcome, and every
 * refusal, also goes to the notifications log (bis_notifications).
 *
 * Senders never step on each other: a row is sent only under a live lease (lease_pid: the backend
 * of a connection the sender holds for as long as it sends), taken in one statement that skips
 * rows under another live lease. A crashed sender's connection goes with it, and so do its leases.
 * Each message is marked as its send completes (no transaction is held across a send), so a crash
 * re-sends at most the messages in flight, SEND_CONCURRENCY of them.
 */

/** Refusals the shop's settings and the signup decide (the messaging vocabulary: src/messaging/blocked.ts). */
export type BlockedReason = Exclude<BackInStockBlockedReason, "plan_limit">;
/** What a send may also end blocked by, found only at send time: the plan's monthly quota is used up (src/account/plans.ts). */
export type SendBlockedReason = BackInStockBlockedReason;

export interface SignupFacts {
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
    `insert into bis_notifications (shop_id, signup_id, variant_id, stage, channel, status, blocked_reason)
     values ($1, $2, $3, $4, $5, 'blocked', $6)`,
    [refusal.shopId, refusal.signupId, refusal.variantId, refusal.stage, refusal.channel, refusal.reason],
  );
  onCommit(db, () => countSend("back_in_stock", refusal.channel, "blocked"));
}

/** A final refusal: the stage is claimed as `blocked` (never sent later) and logged. Answers how many. */
export async function claimBlocked(db: Db, shopId: string, signupIds: readonly string[], stage: Stage, reason: BlockedReason): Promise<number> {
  if (signupIds.length === 0) return 0;
  const { rows } = await db.query<{ channel: string }>(
    `with claimed as (
       insert into bis_ledger (shop_id, signup_id, stage, status, last_error)
       select $1, s.id, $3, 'blocked', $4 from bis_signups s where s.shop_id = $1 and s.id = any($2::uuid[])
       on conflict (signup_id, stage) do nothing
       returning id, signup_id
     )
     insert into bis_notifications (shop_id, signup_id, ledger_id, variant_id, stage, channel, status, blocked_reason)
     select $1, c.signup_id, c.id, s.variant_id, $3, s.channel, 'blocked', $4
     from claimed c join bis_signups s on s.id = c.signup_id
     returning channel`,
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
  renderer: Renderer;
  /** The shop's sender identity and e-mail layout (src/account/messaging.ts). */
  account: AccountMessaging;
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

  /** Loads through `db`: a sender passes the connection it holds, never taking a second one from the pool. */
  get(shopId: string, db: Db): Promise<ShopContext> {
    let context = this.shops.get(shopId);
    if (!context) {
      context = this.load(shopId, db);
      this.shops.set(shopId, context);
      context.catch(() => this.shops.delete(shopId));
    }
    return context;
  }

  private async load(shopId: string, db: Db): Promise<ShopContext> {
    const { config, platform } = this.deps;
    const settings = await loadBackInStockSettings(db, shopId);
    const switches = await stageSwitches(db, shopId);
    const shop = await loadShopInfo(db, shopId);
    const renderer = new Renderer(shop, { publicBaseUrl: publicUrl(config), unsubscribeSecret: platform.webhookSecret, emailFrom: config.EMAIL_FROM });
    const account = await loadAccountMessaging(db, shopId, { senders: senderPolicy(config), shopUrl: shop.url });
    return { settings, switches, renderer, account };
  }
}

/**
 * What to do with a send that may succeed later: `job` records the attempt and queues the row's
 * own send job (batches: one failure never holds up the others), which graphile-worker then
 * retries with its backoff for SEND_RETRY_HOURS; `throw` records the attempt and throws, so the
 * job that runs the send is retried (`lastAttempt`: fail it, with the reason).
 */
export type RetryPolicy = { mode: "job" } | { mode: "throw"; lastAttempt: boolean };

export interface SendSummary {
  sent: number;
  failed: number;
  blocked: number;
  /** Retryable failures waiting for their retry. */
  retrying: number;
  /** Rows another sender holds, or no longer pending. */
  skipped: number;
}

export function emptySummary(): SendSummary {
  return { sent: 0, failed: 0, blocked: 0, retrying: 0, skipped: 0 };
}

export function addSummary(into: SendSummary, more: SendSummary): SendSummary {
  into.sent += more.sent;
  into.failed += more.failed;
  into.blocked += more.blocked;
  into.retrying += more.retrying;
  into.skipped += more.skipped;
  return into;
}

interface PendingRow {
  id: string;
  shop_id: string;
  signup_id: string;
  stage: Stage;
  attempts: number;
  variant_id: string;
  channel: Channel;
  contact: string;
  locale: string;
  consent: boolean;
  first_name: string | null;
  signup_status: string;
}

interface Result {
  id: string;
  outcome: "sent" | "failed" | "blocked" | "retry";
  attempted: boolean;
  /** What the log needs when the row is gone (its signup deleted mid-send). */
  shop_id: string;
  signup_id: string;
  variant_id: string;
  stage: Stage;
  channel: Channel;
  provider_message_id?: string;
  error?: string;
  blocked_reason?: SendBlockedReason;
  /** The rendered e-mail subject, kept in the notifications log. */
  subject?: string;
}

export class RetryLater extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RetryLater";
  }
}

/**
 * The database connection whose life is the life of a sender's leases (bis_ledger.lease_pid). Its
 * backend's start time is read in SQL, never through JavaScript (a Date keeps milliseconds,
 * PostgreSQL microseconds: the lease would never match its holder).
 */
export interface LeaseHolder {
  pid: number;
}

export async function leaseHolder(db: Db): Promise<LeaseHolder> {
  const { rows } = await db.query<{ pid: number }>("select pg_backend_pid() as pid");
  const row = rows[0];
  if (!row) throw new Error("pg_backend_pid() answered no row");
  return { pid: row.pid };
}

/** The holder's backend start (a reused pid starts later), in SQL; `$n` is the holder's pid. */
const holderStart = (param: string) => `(select a.backend_start from pg_stat_activity a where a.pid = ${param})`;

/** A lease is dead when its connection is gone: `l` is the bis_ledger row. */
export const LEASE_DEAD = `(l.lease_pid is null or not exists (
  select 1 from pg_stat_activity a where a.pid = l.lease_pid and a.backend_start = l.lease_backend_start))`;

export interface SendOptions {
  contexts?: SendContexts;
  /** Shared by the chunks of one batch, so that its sends in flight stay within SEND_CONCURRENCY together. */
  limit?: LimitFunction;
  /** The connection the leases live with; absent: one is taken from the pool for the call. */
  holder?: LeaseHolder;
  /** The channel's queue priority (the restock burst's first messages: 1, ahead of follow-ups). */
  priority?: number;
}

/** A concurrency limit of SEND_CONCURRENCY sends (one per batch or call). */
export function sendLimit(deps: AlertDeps): LimitFunction {
  return pLimit(deps.config.SEND_CONCURRENCY);
}

/**
 * Sends claimed (pending) ledger rows. First leases them, in one statement, to a connection that
 * lives as long as this sender (rows under another live lease, or no longer pending, are
 * skipped); then sends at most SEND_CONCURRENCY at once and marks each message as its send
 * completes, before its slot takes the next one: a crash re-sends at most the messages in flight.
 * Refusals found now (unsubscribed since the claim, channel or stage switched off, consent
 * missing, the plan's quota used up) end `blocked`. A retryable failure is recorded (attempts,
 * last error) and retried by graphile-worker (see RetryPolicy); a message is never marked sent
 * unless the server accepted it.
 */
export async function sendLedgerRows(deps: AlertDeps, ledgerIds: readonly string[], policy: RetryPolicy, options: SendOptions = {}): Promise<SendSummary> {
  const summary = emptySummary();
  if (ledgerIds.length === 0) return summary;
  const own = options.holder ? undefined : await deps.pool.connect();
  const results: Result[] = [];
  try {
    const holder = options.holder ?? (await leaseHolder(own as pg.PoolClient));
    const rows = await lease(deps.pool, ledgerIds, holder);
    summary.skipped = ledgerIds.length - rows.length;
    const marks = new Marks(deps, policy);
    try {
      await sendLeased(deps, rows, policy, options, marks, results);
    } finally {
      await marks.flushed();
      // A row this call leased and did not mark (an error midway): free for the next sender now.
      await deps.pool.query(
        `update bis_ledger set lease_pid = null, lease_backend_start = null
         where id = any($1::uuid[]) and lease_pid = $2 and lease_backend_start = ${holderStart("$2")}`,
        [rows.map((r) => r.id), holder.pid],
      );
    }
  } finally {
    own?.release();
  }
  for (const result of results) {
    if (result.outcome === "retry") summary.retrying += 1;
    else summary[result.outcome] += 1;
    countSend("back_in_stock", result.channel, result.outcome);
  }
  const retry = results.find((r) => r.outcome === "retry");
  if (policy.mode === "throw" && retry) throw new RetryLater(retry.error ?? "send failed");
  return summary;
}

/** Leases the pending rows no live sender holds, to `holder`; answers them with their signups, oldest signup first (the order quota and sends follow). */
async function lease(pool: pg.Pool, ledgerIds: readonly string[], holder: LeaseHolder): Promise<PendingRow[]> {
  const { rows } = await pool.query<PendingRow>(
    `with leased as (
       update bis_ledger l set lease_pid = $2, lease_backend_start = ${holderStart("$2")}
       where l.id = any($1::uuid[]) and l.status = 'pending' and ${LEASE_DEAD}
       returning l.id, l.shop_id, l.signup_id, l.stage, l.attempts
     )
     select l.id, l.shop_id, l.signup_id, l.stage, l.attempts, s.variant_id, s.channel, s.contact, s.locale, s.consent, s.first_name,
            s.status as signup_status
     from leased l join bis_signups s on s.id = l.signup_id
     order by s.created_at, s.id`,
    [ledgerIds, holder.pid],
  );
  return rows;
}

async function sendLeased(deps: AlertDeps, rows: readonly PendingRow[], policy: RetryPolicy, options: SendOptions, marks: Marks, results: Result[]): Promise<void> {
  const contexts = options.contexts ?? new SendContexts(deps);
  const about = (row: PendingRow) => ({ id: row.id, shop_id: row.shop_id, signup_id: row.signup_id, variant_id: row.variant_id, stage: row.stage, channel: row.channel });
  const refused: Result[] = [];
  let toSend: { row: PendingRow; renderer: Renderer; account: AccountMessaging }[] = [];
  for (const row of rows) {
    const context = await contexts.get(row.shop_id, deps.pool);
    const reason = blockedReason({ status: row.signup_status, channel: row.channel, consent: row.consent }, row.stage, context.settings, context.switches);
    if (reason) refused.push({ ...about(row), outcome: "blocked", attempted: false, blocked_reason: reason });
    else toSend.push({ row, renderer: context.renderer, account: context.account });
  }
  // The plan's monthly quota, reserved on a short transaction of its own (src/account/plans.ts):
  // what does not fit ends blocked (plan_limit), never sent.
  const admitted = new Set<string>();
  for (const shopId of new Set(toSend.map((t) => t.row.shop_id))) {
    const ids = toSend.filter((t) => t.row.shop_id === shopId).map((t) => t.row.id);
    for (const id of await reserveSends(deps.pool, shopId, ids)) admitted.add(id);
  }
  for (const t of toSend) if (!admitted.has(t.row.id)) refused.push({ ...about(t.row), outcome: "blocked", attempted: false, blocked_reason: "plan_limit" });
  toSend = toSend.filter((t) => admitted.has(t.row.id));
  results.push(...refused);
  await Promise.all(refused.map((r) => marks.mark(r)));

  const recipient = (row: PendingRow) => ({
    ledgerId: row.id,
    signupId: row.signup_id,
    stage: row.stage,
    channel: row.channel,
    contact: row.contact,
    locale: row.locale,
    firstName: row.first_name,
    variantId: row.variant_id,
  });
  for (const renderer of new Set(toSend.map((t) => t.renderer))) {
    await renderer.prepare(
      deps.pool,
      toSend.filter((t) => t.renderer === renderer).map((t) => recipient(t.row)),
    );
  }
  const lastAttempt = policy.mode === "throw" && policy.lastAttempt;
  const retryHours = deps.config.SEND_RETRY_HOURS;
  /** Renders, sends and judges one message; never throws. */
  const attempt = async ({ row, renderer, account }: { row: PendingRow; renderer: Renderer; account: AccountMessaging }): Promise<Result> => {
    let message: OutboundMessage;
    try {
      message = dressMessage(await renderer.render(recipient(row)), account);
    } catch (error) {
      return { ...about(row), outcome: "failed", attempted: false, error: `Template did not render: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}` };
    }
    const subject = message.subject;
    try {
      const sent = await deps.channels.get(row.channel).send(message, { priority: options.priority ?? 0 });
      return sent.accepted
        ? { ...about(row), outcome: "sent", attempted: true, provider_message_id: sent.providerMessageId, subject }
        : { ...about(row), outcome: "failed", attempted: true, provider_message_id: sent.providerMessageId, error: "The provider accepted no recipient", subject };
    } catch (error) {
      const retryable = isChannelError(error) ? error.retryable : true;
      const text = error instanceof Error ? error.message : String(error);
      if (!retryable) return { ...about(row), outcome: "failed", attempted: true, error: text, subject };
      if (lastAttempt) return { ...about(row), outcome: "failed", attempted: true, error: gaveUpReason(text, retryHours), subject };
      return { ...about(row), outcome: "retry", attempted: true, error: text, subject };
    }
  };
  const sendOne = async (item: { row: PendingRow; renderer: Renderer; account: AccountMessaging }): Promise<void> => {
    const result = await attempt(item);
    results.push(result);
    // The slot is taken until the mark lands: sent-but-unmarked never exceeds the limit.
    await marks.mark(result);
  };
  const limit = options.limit ?? sendLimit(deps);
  await Promise.all(toSend.map((t) => limit(() => sendOne(t))));
}

/**
 * Marks results as they come. The marks of sends that complete within one turn of the event loop
 * go in one statement (with the retry jobs of `job` mode, in one transaction); each caller waits
 * for its own mark.
 */
class Marks {
  private readonly deps: AlertDeps;
  private readonly policy: RetryPolicy;
  private waiting: { result: Result; done: () => void; failed: (error: unknown) => void }[] = [];
  private running: Promise<void> = Promise.resolve();
  private scheduled = false;

  constructor(deps: AlertDeps, policy: RetryPolicy) {
    this.deps = deps;
    this.policy = policy;
  }

  mark(result: Result): Promise<void> {
    return new Promise((done, failed) => {
      this.waiting.push({ result, done, failed });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.running = this.running.then(() => this.flush());
      });
    });
  }

  /** Resolves once every mark asked for so far has landed (or failed). */
  async flushed(): Promise<void> {
    while (this.scheduled || this.waiting.length > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      await this.running;
    }
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    const results = batch.map((b) => b.result);
    const retries = this.policy.mode === "job" ? results.filter((r) => r.outcome === "retry") : [];
    try {
      if (retries.length === 0) await markResults(this.deps.pool, results);
      else {
        const attempts = sendAttemptsFor(this.deps.config.SEND_RETRY_HOURS);
        await withTransaction(this.deps.pool, async (db) => {
          await markResults(db, results);
          for (const retry of retries) await queueSend(db, retry.id, { maxAttempts: attempts });
        });
      }
      for (const b of batch) b.done();
    } catch (error) {
      for (const b of batch) b.failed(error);
    }
  }
}

/**
 * Marks the outcomes in one statement: the ledger rows (their lease ends), the signups (an
 * `initial` accepted: notified; failed or refused: failed, with the reason; still retried: the
 * last error), the notifications log for final outcomes, the reminder queue for `initial`
 * messages sent, and the quota reservations of final outcomes (a retry keeps its own).
 */
async function markResults(db: Db, results: readonly Result[]): Promise<void> {
  if (results.length === 0) return;
  await db.query(
    `with r as (
       select * from jsonb_to_recordset($1::jsonb)
         as r(id uuid, outcome text, attempted boolean, shop_id uuid, signup_id uuid, variant_id text, stage text, channel text,
              provider_message_id text, error text, blocked_reason text, subject text)
     ), marked as (
       update bis_ledger l set
         status = case when r.outcome = 'retry' then 'pending' else r.outcome end,
         attempts = l.attempts + case when r.attempted then 1 else 0 end,
         last_error = coalesce(r.error, r.blocked_reason, l.last_error),
         provider_message_id = coalesce(r.provider_message_id, l.provider_message_id),
         sent_at = case when r.outcome = 'sent' then now() else l.sent_at end,
         lease_pid = null, lease_backend_start = null
       from r where l.id = r.id and l.status = 'pending'
       returning l.id, l.signup_id, l.sent_at
     ), signups as (
       update bis_signups s set
         status = case r.outcome when 'sent' then 'notified' when 'retry' then s.status else 'failed' end,
         notified_at = case when r.outcome = 'sent' then now() else s.notified_at end,
         last_error = case when r.outcome = 'sent' then null
                           when r.outcome = 'blocked' then 'blocked: ' || r.blocked_reason else r.error end,
         updated_at = now()
       from r where r.stage = 'initial' and s.id = r.signup_id and s.status = 'pending'
     ), logged as (
       insert into bis_notifications (shop_id, signup_id, ledger_id, variant_id, stage, channel, status, blocked_reason, error, provider_message_id, subject)
       select r.shop_id, (select s.id from bis_signups s where s.id = r.signup_id), m.id, r.variant_id, r.stage, r.channel, r.outcome,
              r.blocked_reason, case when r.outcome = 'failed' then r.error end, r.provider_message_id, r.subject
       from r left join marked m on m.id = r.id
       where r.outcome <> 'retry' and (m.id is not null or not exists (select 1 from bis_ledger l where l.id = r.id))
     ), released as (
       delete from account_send_reservations a using r where a.ledger_id = r.id and r.outcome <> 'retry'
     )
     insert into bis_reminder_queue (signup_id, shop_id, initial_sent_at)
     select m.signup_id, r.shop_id, m.sent_at from marked m join r on r.id = m.id where r.outcome = 'sent' and r.stage = 'initial'
     on conflict (signup_id) do nothing`,
    [JSON.stringify(results)],
  );
}
