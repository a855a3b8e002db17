import type { OutboundMessage } from "../../channels/index.ts";
import { isChannelError } from "../../channels/index.ts";
import { publicUrl } from "../../channels/public-url.ts";
import { type Db, onCommit, rollbackFailed } from "../../core/db.ts";
import { enqueue } from "../../core/tasks.ts";
import { countSend } from "../../metrics/registry.ts";
import type { Channel, Stage } from "../templates/default-templates.ts";
import { type BackInStockSettings, loadBackInStockSettings } from "../settings/settings-store.ts";
import { type AlertDeps, MAX_SEND_ATTEMPTS, retryDelaySeconds, sendTask } from "./deps.ts";
import { Renderer, loadShopInfo, stageSwitches } from "../templates/render.ts";
import { type AccountMessaging, dressMessage, loadAccountMessaging } from "../../account/messaging.ts";
import { releaseReservations, reserveSends } from "../../account/plans.ts";
import { senderPolicy } from "../../account/sending.ts";

/**
 * THE LEDGER. One row per signup and stage, ever (unique (signup_id, stage)): a message is
 * claimed by inserting its row (`on conflict do nothing`) and committing BEFORE it is sent, sent
 * with the row's id as its message id, and marked sent / failed / blocked after. A crash between
 * the two leaves the row `pending`; whoever sends it later (the recovery sweep, a retry job) sends
 * that same row, with the same message id: never a new row. Every final outcome, and every
 * refusal, also goes to the notifications log (bis_notifications).
 *
 * Senders never step on each other: a row is sent only by the transaction that holds its row
 * lock (`for update skip locked`, re-checking `status = 'pending'`), held from before the send
 * until the mark commits. A crashed sender's lock goes with its connection.
 */

export type BlockedReason = "unsubscribed" | "channel_disabled" | "template_disabled" | "opt_in_missing" | "out_of_stock";
/** What a send may also end blocked by, found only at send time: the plan's monthly quota is used up (src/account/plans.ts). */
export type SendBlockedReason = BlockedReason | "plan_limit";

export interface SignupFacts {
  status: string;
  channel: Channel;
  consent: boolean;
}

/** Why a stage may not be sent to this signup now, or undefined when it may. */
export function blockedReason(signup: SignupFacts, stage: Stage, settings: BackInStockSettings, switches: Record<Stage, boolean>): BlockedReason | undefined {
  if (signup.status === "unsubscribed") return "unsubscribed";
  if (!switches[stage]) return "template_disabled";
  if (!settings.channels[signup.channel].enabled) return "channel_disabled";
  if (settings.compliance.opt_in_required && !signup.consent) return "opt_in_missing";
  return undefined;
}

/**
 * Claims `stage` for the given signups of the shop: inserts the ledger rows that do not exist
 * yet (pending) and answers their ids; a signup that already has the stage gets nothing. Claiming
 * `initial` also takes a waiting signup to notified. Commit before sending.
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
       update bis_signups s set status = 'notified', notified_at = now(), updated_at = now()
       from claimed c where $3 = 'initial' and s.id = c.signup_id and s.status = 'waiting'
     )
     select id, signup_id from claimed`,
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

/** Queues the send of one claimed row as its own job (on-demand sends, and retries). */
export async function queueSend(db: Db, ledgerId: string, options: { delaySeconds?: number; maxAttempts?: number } = {}): Promise<void> {
  await enqueue(
    db,
    sendTask,
    { ledger_id: ledgerId },
    { jobKey: `${sendTask.name}:${ledgerId}`, delaySeconds: options.delaySeconds ?? 0, maxAttempts: options.maxAttempts ?? MAX_SEND_ATTEMPTS },
  );
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
 * What to do with a send that may succeed later: `job` queues a retry job for the row (batches:
 * one failure never resends the others); `throw` records the attempt and throws, so the job
 * that runs the send is retried by graphile-worker with its backoff (`lastAttempt`: log failed).
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
  provider_message_id?: string;
  error?: string;
  blocked_reason?: SendBlockedReason;
  /** The rendered e-mail subject, kept in the notifications log. */
  subject?: string;
}

/** Messages handed to a channel at once: e-mail queues in the SMTP pool, text messages are HTTP calls. */
const SEND_CONCURRENCY: Record<Channel, number> = { email: 250, sms: 16 };

async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  });
  await Promise.all(workers);
}

export class RetryLater extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RetryLater";
  }
}

/**
 * Sends claimed (pending) ledger rows and marks them, in one transaction that holds their row
 * locks from before the first send to the mark. Rows another sender holds, or that are no
 * longer pending, are skipped. Refusals found now (unsubscribed since the claim, channel or
 * stage switched off, consent missing) end `blocked`. Under `throw`, a retryable failure
 * throws RetryLater after the attempt is recorded.
 */
export async function sendLedgerRows(deps: AlertDeps, ledgerIds: readonly string[], policy: RetryPolicy, contexts = new SendContexts(deps)): Promise<SendSummary> {
  const summary = emptySummary();
  if (ledgerIds.length === 0) return summary;
  const channels = deps.channels;
  const client = await deps.pool.connect();
  let broken = false;
  const results: Result[] = [];
  const channelOf = new Map<string, string>();
  try {
    await client.query("begin");
    const { rows } = await client.query<PendingRow>(
      `select l.id, l.shop_id, l.signup_id, l.stage, l.attempts, s.variant_id, s.channel, s.contact, s.locale, s.consent, s.first_name,
              s.status as signup_status
       from bis_ledger l join bis_signups s on s.id = l.signup_id
       where l.id = any($1::uuid[]) and l.status = 'pending'
       order by l.created_at
       for update of l skip locked`,
      [ledgerIds],
    );
    summary.skipped = ledgerIds.length - rows.length;
    for (const row of rows) channelOf.set(row.id, row.channel);
    let toSend: { row: PendingRow; renderer: Renderer; account: AccountMessaging }[] = [];
    for (const row of rows) {
      const context = await contexts.get(row.shop_id, client);
      const reason = blockedReason({ status: row.signup_status, channel: row.channel, consent: row.consent }, row.stage, context.settings, context.switches);
      if (reason) results.push({ id: row.id, outcome: "blocked", attempted: false, blocked_reason: reason });
      else toSend.push({ row, renderer: context.renderer, account: context.account });
    }
    // The plan's monthly quota, reserved on a short transaction of its own (src/account/plans.ts):
    // what does not fit ends blocked (plan_limit), never sent.
    const admitted = new Set<string>();
    for (const shopId of new Set(toSend.map((t) => t.row.shop_id))) {
      const ids = toSend.filter((t) => t.row.shop_id === shopId).map((t) => t.row.id);
      for (const id of await reserveSends(deps.pool, shopId, ids)) admitted.add(id);
    }
    for (const t of toSend) if (!admitted.has(t.row.id)) results.push({ id: t.row.id, outcome: "blocked", attempted: false, blocked_reason: "plan_limit" });
    toSend = toSend.filter((t) => admitted.has(t.row.id));
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
        client,
        toSend.filter((t) => t.renderer === renderer).map((t) => recipient(t.row)),
      );
    }
    const lastAttempt = policy.mode === "throw" && policy.lastAttempt;
    const sendOne = async ({ row, renderer, account }: { row: PendingRow; renderer: Renderer; account: AccountMessaging }) => {
      let message: OutboundMessage;
      try {
        message = dressMessage(await renderer.render(recipient(row)), account);
      } catch (error) {
        results.push({ id: row.id, outcome: "failed", attempted: false, error: `Template did not render: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}` });
        return;
      }
      try {
        const sent = await channels.get(row.channel).send(message);
        const subject = message.subject;
        if (sent.accepted) results.push({ id: row.id, outcome: "sent", attempted: true, provider_message_id: sent.providerMessageId, subject });
        else results.push({ id: row.id, outcome: "failed", attempted: true, provider_message_id: sent.providerMessageId, error: "The provider accepted no recipient", subject });
      } catch (error) {
        const retryable = isChannelError(error) ? error.retryable : true;
        const text = error instanceof Error ? error.message : String(error);
        const again = retryable && !lastAttempt && row.attempts + 1 < MAX_SEND_ATTEMPTS;
        results.push({ id: row.id, outcome: again ? "retry" : "failed", attempted: true, error: text, subject: message.subject });
      }
    };
    await Promise.all(
      (["email", "sms"] as const).map((channel) =>
        forEachLimited(
          toSend.filter((t) => t.row.channel === channel),
          SEND_CONCURRENCY[channel],
          sendOne,
        ),
      ),
    );
    await markResults(client, results);
    // Final outcomes give their quota reservation back (a sent one now counts as sent); a retry keeps it.
    await releaseReservations(client, results.filter((r) => r.outcome !== "retry").map((r) => r.id));
    const retries = results.filter((r) => r.outcome === "retry");
    if (policy.mode === "job" && retries.length > 0) {
      // The first retry waits like graphile-worker's own first backoff; the job then has the attempts left.
      const attempts = new Map(rows.map((r) => [r.id, r.attempts + 1]));
      for (const retry of retries) {
        const done = attempts.get(retry.id) ?? 1;
        await queueSend(client, retry.id, { delaySeconds: retryDelaySeconds(done), maxAttempts: MAX_SEND_ATTEMPTS - done });
      }
    }
    await client.query("commit");
  } catch (error) {
    broken = await rollbackFailed(client);
    throw error;
  } finally {
    client.release(broken);
  }
  for (const result of results) {
    if (result.outcome === "retry") summary.retrying += 1;
    else summary[result.outcome] += 1;
    countSend("back_in_stock", channelOf.get(result.id) ?? "other", result.outcome);
  }
  const retry = results.find((r) => r.outcome === "retry");
  if (policy.mode === "throw" && retry) throw new RetryLater(retry.error ?? "send failed");
  return summary;
}

/**
 * Marks the outcomes in one statement: the ledger rows, the notifications log for final
 * outcomes, and the reminder queue for `initial` messages sent.
 */
async function markResults(db: Db, results: readonly Result[]): Promise<void> {
  if (results.length === 0) return;
  await db.query(
    `with r as (
       select * from jsonb_to_recordset($1::jsonb)
         as r(id uuid, outcome text, attempted boolean, provider_message_id text, error text, blocked_reason text, subject text)
     ), marked as (
       update bis_ledger l set
         status = case when r.outcome = 'retry' then 'pending' else r.outcome end,
         attempts = l.attempts + case when r.attempted then 1 else 0 end,
         last_error = coalesce(r.error, r.blocked_reason, l.last_error),
         provider_message_id = coalesce(r.provider_message_id, l.provider_message_id),
         sent_at = case when r.outcome = 'sent' then now() else l.sent_at end
       from r where l.id = r.id
       returning l.id, l.shop_id, l.signup_id, l.stage, l.sent_at, r.outcome, r.provider_message_id, r.error, r.blocked_reason, r.subject
     ), logged as (
       insert into bis_notifications (shop_id, signup_id, ledger_id, variant_id, stage, channel, status, blocked_reason, error, provider_message_id, subject)
       select m.shop_id, m.signup_id, m.id, s.variant_id, m.stage, s.channel, m.outcome, m.blocked_reason,
              case when m.outcome = 'failed' then m.error end, m.provider_message_id, m.subject
       from marked m join bis_signups s on s.id = m.signup_id
       where m.outcome <> 'retry'
     )
     insert into bis_reminder_queue (signup_id, shop_id, initial_sent_at)
     select m.signup_id, m.shop_id, m.sent_at from marked m where m.outcome = 'sent' and m.stage = 'initial'
     on conflict (signup_id) do nothing`,
    [JSON.stringify(results)],
  );
}
