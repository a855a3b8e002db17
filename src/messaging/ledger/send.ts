import type pg from "pg";
import pLimit, { type LimitFunction } from "p-limit";
import type { ChannelName, Channels, OutboundMessage } from "../../channels/index.ts";
import { type Db, withTransaction } from "../../core/db.ts";
import { countSend } from "../../metrics/registry.ts";
import { uninstalledShops } from "../../platform/installation.ts";
import { type SendCall, databaseGate } from "./database-gate.ts";
import { type LeaseHolder, leaseHolder, releaseLeases } from "./lease.ts";
import { Marks } from "./marks.ts";
import { type Attempt, type Outcome, RetryLater, type RetryPolicy, attemptSend } from "./outcome.ts";

/**
 * THE SEND PIPELINE of every area's ledger (back in stock: bis_ledger; preorders:
 * preorder_notifications). A message is claimed by inserting its ledger row (pending) and
 * committing BEFORE it is sent; then `sendClaimed`:
 *   1. leases the pending rows no live sender holds to a connection it keeps for the call
 *      (lease.ts: a crashed sender's leases die with its connection);
 *   2. refuses what the area's rules refuse now (the blocked vocabulary, ../blocked.ts) and what
 *      the plan's quota does not admit;
 *   3. renders (on the render pool) and sends at most SEND_CONCURRENCY at once, with the row's id
 *      in the message id, and marks each message as its send completes, before its slot takes
 *      the next one: a crash re-sends at most the messages in flight;
 *   4. a failure that may pass is recorded and retried by graphile-worker (RetryPolicy), never
 *      marked sent: a message is sent only once a server accepted it.
 * Each area supplies its rows, its rules, its render and its mark (MessageLedger).
 */

export type MessageKind = "back_in_stock" | "preorder";

export interface ClaimedRow {
  id: string;
  shop_id: string;
  channel: ChannelName;
}

/** One message's outcome, with the row it is about (the mark may need it: the row may be gone). */
export interface MarkResult<Row, Reason extends string> extends Omit<Attempt, "outcome"> {
  row: Row;
  outcome: Outcome;
  blocked_reason?: Reason;
}

/**
 * An area's ledger as the pipeline sees it. `Shop` is what the area loads once per shop and call
 * (settings, stage switches, templates, sender identity) to judge and render that shop's rows.
 */
export interface MessageLedger<Row extends ClaimedRow, Reason extends string, Shop> {
  kind: MessageKind;
  /** The ledger table (its rows: id, status, lease_pid, lease_backend_start). */
  table: string;
  /** The refusal of a row the quota did not admit. */
  quotaReason?: Reason;
  /** Leases the pending rows under no live lease to `holder` (lease.ts) and answers them, in send order. */
  lease(db: Db, ids: readonly string[], holder: LeaseHolder): Promise<Row[]>;
  loadShop(shopId: string): Promise<Shop>;
  /** Why the row may not be sent now, or undefined when it may. */
  refusal(row: Row, shop: Shop): Reason | undefined;
  /** The rows of one shop the plan's quota admits (reserved until marked); absent: all. */
  admit?(shopId: string, rows: readonly Row[]): Promise<ReadonlySet<string>>;
  /** Starts rendering one shop's rows about to be sent, ahead of their sends; optional. */
  prepare?(rows: readonly Row[], shop: Shop, options: { priority: number }): Promise<void>;
  render(row: Row, shop: Shop): Promise<OutboundMessage>;
  /** Records outcomes (ends their leases); a `retry` keeps the row pending with its error. */
  mark(db: Db, results: readonly MarkResult<Row, Reason>[]): Promise<void>;
  /** Queues the row's own send job (`job` mode retries; recovery), under the row's job key. */
  queueSend(db: Db, id: string): Promise<void>;
}

export interface LedgerDeps {
  pool: pg.Pool;
  channels: Channels;
  config: { SEND_CONCURRENCY: number; SEND_RETRY_HOURS: number };
}

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

export interface SendOptions {
  /** Shared by the calls of one batch, so that their sends in flight stay within SEND_CONCURRENCY together. */
  limit?: LimitFunction;
  /** The connection the leases live with; absent: one is taken from the pool for the call. */
  holder?: LeaseHolder;
  /** Ahead of others in the render pool and the channel's queue (a restock's first messages: 1). */
  priority?: number;
}

/** A concurrency limit of SEND_CONCURRENCY sends (one per batch or call). */
export function sendLimit(deps: LedgerDeps): LimitFunction {
  return pLimit(deps.config.SEND_CONCURRENCY);
}

/** Sends claimed (pending) rows of the ledger: see the pipeline above. In `throw` mode a retryable failure throws RetryLater after it is recorded. */
export async function sendClaimed<Row extends ClaimedRow, Reason extends string, Shop>(
  deps: LedgerDeps,
  ledger: MessageLedger<Row, Reason, Shop>,
  ids: readonly string[],
  policy: RetryPolicy,
  options: SendOptions = {},
): Promise<SendSummary> {
  const summary = emptySummary();
  if (ids.length === 0) return summary;
  const results: MarkResult<Row, Reason>[] = [];
  const own = options.holder ? undefined : await deps.pool.connect();
  try {
    const holder = options.holder ?? (await leaseHolder(own as pg.PoolClient));
    const leased = await ledger.lease(deps.pool, ids, holder);
    // Nothing is sent for a shop the app is uninstalled from: its rows stay pending, unmarked.
    const uninstalled = await uninstalledShops(deps.pool, leased.map((r) => r.shop_id));
    const rows = uninstalled.size === 0 ? leased : leased.filter((r) => !uninstalled.has(r.shop_id));
    summary.skipped = ids.length - rows.length;
    // A mark the database cannot take now is written again once it answers, and no send starts meanwhile;
    // after a mark failed for good, none of this call's (database-gate.ts).
    const gate = databaseGate.call(deps.pool, ledger.table, holder, rows.map((r) => r.id));
    // The rows whose mark landed (a mark ends the row's lease).
    const marked = new Set<string>();
    const marks = new Marks<MarkResult<Row, Reason>>(async (batch) => {
      await gate.write(() => markBatch(deps, ledger, policy, batch));
      for (const result of batch) marked.add(result.row.id);
    });
    try {
      await sendLeased(deps, ledger, rows, policy, options, marks, results, gate);
    } finally {
      await marks.flushed();
      // A row this call leased and did not mark (an uninstalled shop's, an error midway): free for
      // the next sender now. Only those: a release of the whole chunk, every row of it marked,
      // was a statement of 200 key probes per chunk that changed nothing.
      await releaseLeases(deps.pool, ledger.table, leased.filter((r) => !marked.has(r.id)).map((r) => r.id), holder);
    }
  } finally {
    own?.release();
  }
  for (const result of results) {
    if (result.outcome === "retry") summary.retrying += 1;
    else summary[result.outcome] += 1;
    countSend(ledger.kind, result.row.channel, result.outcome);
  }
  const retry = results.find((r) => r.outcome === "retry");
  if (policy.mode === "throw" && retry) throw new RetryLater(retry.error ?? "send failed");
  return summary;
}

async function sendLeased<Row extends ClaimedRow, Reason extends string, Shop>(
  deps: LedgerDeps,
  ledger: MessageLedger<Row, Reason, Shop>,
  rows: readonly Row[],
  policy: RetryPolicy,
  options: SendOptions,
  marks: Marks<MarkResult<Row, Reason>>,
  results: MarkResult<Row, Reason>[],
  gate: SendCall,
): Promise<void> {
  if (rows.length === 0) return;
  const priority = options.priority ?? 0;
  const shops = new Map<string, Shop>();
  for (const shopId of new Set(rows.map((r) => r.shop_id))) shops.set(shopId, await ledger.loadShop(shopId));
  const shopOf = (row: Row): Shop => {
    const shop = shops.get(row.shop_id);
    if (shop === undefined) throw new Error(`no shop loaded for ${row.shop_id}`);
    return shop;
  };
  const refused: MarkResult<Row, Reason>[] = [];
  let toSend: Row[] = [];
  for (const row of rows) {
    const reason = ledger.refusal(row, shopOf(row));
    if (reason) refused.push({ row, outcome: "blocked", attempted: false, blocked_reason: reason });
    else toSend.push(row);
  }
  if (ledger.admit) {
    // The plan's quota, reserved before the send: what does not fit ends blocked, never sent.
    const admitted = new Set<string>();
    for (const shopId of new Set(toSend.map((r) => r.shop_id))) {
      for (const id of await ledger.admit(shopId, toSend.filter((r) => r.shop_id === shopId))) admitted.add(id);
    }
    for (const row of toSend) {
      if (!admitted.has(row.id)) refused.push({ row, outcome: "blocked", attempted: false, blocked_reason: ledger.quotaReason });
    }
    toSend = toSend.filter((r) => admitted.has(r.id));
  }
  results.push(...refused);
  await Promise.all(refused.map((r) => marks.mark(r)));
  if (ledger.prepare) {
    for (const [shopId, shop] of shops) {
      const mine = toSend.filter((r) => r.shop_id === shopId);
      if (mine.length > 0) await ledger.prepare(mine, shop, { priority });
    }
  }

  const judged = { priority, lastAttempt: policy.mode === "throw" && policy.lastAttempt, retryHours: deps.config.SEND_RETRY_HOURS };
  const sendOne = async (row: Row): Promise<void> => {
    await gate.passage(row.id);
    const attempt = await attemptSend(deps.channels, () => ledger.render(row, shopOf(row)), judged);
    const result: MarkResult<Row, Reason> = { ...attempt, row };
    results.push(result);
    // The slot is taken until the mark lands: sent-but-unmarked never exceeds the limit.
    await marks.mark(result);
  };
  const limit = options.limit ?? sendLimit(deps);
  await Promise.all(toSend.map((row) => limit(() => sendOne(row))));
}

/** One batch of marks; in `job` mode with the send jobs of the retries, in one transaction. */
async function markBatch<Row extends ClaimedRow, Reason extends string, Shop>(
  deps: LedgerDeps,
  ledger: MessageLedger<Row, Reason, Shop>,
  policy: RetryPolicy,
  results: MarkResult<Row, Reason>[],
): Promise<void> {
  const retries = policy.mode === "job" ? results.filter((r) => r.outcome === "retry") : [];
  if (retries.length === 0) {
    await ledger.mark(deps.pool, results);
    return;
  }
  await withTransaction(deps.pool, async (db) => {
    await ledger.mark(db, results);
    for (const retry of retries) await ledger.queueSend(db, retry.row.id);
  });
}

/**
 * Ends claimed rows as failed without sending them (recovery: a send job that ran out of attempts
 * on an error nobody recorded, a row too old to send): leased first, so a live sender's rows are
 * never touched, and marked through the area's own mark. Answers how many.
 */
export async function failClaimed<Row extends ClaimedRow, Reason extends string, Shop>(
  deps: LedgerDeps,
  ledger: MessageLedger<Row, Reason, Shop>,
  failures: readonly { id: string; error: string }[],
): Promise<number> {
  if (failures.length === 0) return 0;
  const client = await deps.pool.connect();
  try {
    const holder = await leaseHolder(client);
    const rows = await ledger.lease(deps.pool, failures.map((f) => f.id), holder);
    const reasons = new Map(failures.map((f) => [f.id, f.error]));
    const results = rows.map((row): MarkResult<Row, Reason> => ({ row, outcome: "failed", attempted: false, error: reasons.get(row.id) ?? "failed" }));
    await ledger.mark(deps.pool, results);
    for (const result of results) countSend(ledger.kind, result.row.channel, "failed");
    return results.length;
  } finally {
    client.release();
  }
}
