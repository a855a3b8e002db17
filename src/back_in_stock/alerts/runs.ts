import type pg from "pg";
import { type Db, withTransaction } from "../../core/db.ts";
import { coalescing } from "../../core/coalesce.ts";
import { enqueue, enqueueAfterCommit } from "../../core/tasks.ts";
import { type BackInStockSettings, DEFAULT_BACK_IN_STOCK_SETTINGS, backInStockSettingsSchema, loadBackInStockSettings } from "../settings/settings.ts";
import { mergeDeep } from "../../core/deep-partial.ts";
import { issueText } from "../../core/errors.ts";
import { formatIssues } from "../../core/validation.ts";
import type { PreparingDb } from "../../core/rate-limit.ts";
import { type AlertDeps, alertRunTask, restockBurstTask, sendTask } from "./deps.ts";
import { type LeaseHolder, leaseHolder, leaseValues } from "../../messaging/ledger/lease.ts";
import { type SendSummary, addSummary, emptySummary, sendLimit } from "../../messaging/ledger/send.ts";
import { LEASE_DEAD, type SendOptions, SendContexts, sendLedgerRows } from "./ledger.ts";
import { stageSwitches, stageSwitchesOver } from "../templates/render.ts";
import type { Stage } from "../templates/default-templates.ts";
import { batchStock, itemStocks, itemStocksQuery, mirrorStock, signupMarketStockedSql } from "./stock.ts";
import { liveJobWithKey } from "../../queue/relations.ts";
import { loadPlan, lockQuota, monthPeriod, periodKey, quotaUsed, recountReserved } from "../../account/plans.ts";

/**
 * ALERT RUNS. A restock starts one run per variant (at most one `running` row per variant, and
 * one graphile-worker job under the key `bis_alert_run:<shop>:<variant>`). Each job is one batch:
 * it re-reads the stock, stops the run below the minimum, claims at most
 * floor(multiplier x available) of the oldest eligible waiting signups, sends them, and queues
 * the next batch as a new job under the same key at batch start + interval. No job sleeps.
 *
 * A batch claims and sends in chunks: each chunk is claimed in one statement (ledger rows leased
 * to the batch's connection, the plan's quota reserved, the batch's count and the run's cursor)
 * and committed, then sent by sendLedgerRows (each message marked as its send completes) while
 * the next chunk is claimed. The claimed signups stay `waiting` until their mark: the run's keyset
 * cursor (the last signup taken, in the queue's order) passes them. The batch's quota, count and
 * cursor live on the run row, so a batch resumed after a crash continues it rather than starting a
 * new one.
 */

export const CHUNK_SIZE = 200;
/** Chunks claimed ahead by one batch; their sends share one SEND_CONCURRENCY limit. */
const CHUNKS_IN_FLIGHT = 2;

type RunTrigger = "inventory_webhook" | "inventory_check" | "recovery";

/**
 * What opens a run with its first batch sized by the stock it wrote, for the restock burst to
 * serve: an inventory webhook, or a catalog sync's page of levels (openMirroredRestockRuns).
 */
type RestockWriteTrigger = "inventory_webhook" | "catalog_sync";
const RESTOCK_WRITE_TRIGGERS: readonly string[] = ["inventory_webhook", "catalog_sync"] satisfies RestockWriteTrigger[];

interface AlertRunPayload {
  shop_id: string;
  variant_id: string;
  trigger?: string;
}

export function alertRunKey(shopId: string, variantId: string): string {
  return `${alertRunTask.name}:${shopId}:${variantId}`;
}

/**
 * Asks for an alert run of the variant: a job under the run's key. It coalesces with a batch
 * already queued (keeping that batch's time: a restock never skips the interval), and a batch
 * that is running when it arrives re-checks when it is done (the run's next_batch_at holds).
 */
export async function requestAlertRun(db: Db, shopId: string, variantId: string, trigger: RunTrigger): Promise<void> {
  await enqueue(
    db,
    alertRunTask,
    { shop_id: shopId, variant_id: variantId, trigger },
    { jobKey: alertRunKey(shopId, variantId), jobKeyMode: "preserve_run_at", maxAttempts: 10 },
  );
}

async function scheduleBatch(db: Db, shopId: string, variantId: string, runAt: Date, trigger: string): Promise<void> {
  await enqueue(db, alertRunTask, { shop_id: shopId, variant_id: variantId, trigger }, { jobKey: alertRunKey(shopId, variantId), runAt, maxAttempts: 10 });
}

interface Eligibility {
  channels: string[];
  optInRequired: boolean;
}

function eligibility(settings: BackInStockSettings): Eligibility {
  return {
    channels: (["email", "sms"] as const).filter((c) => settings.channels[c].enabled),
    optInRequired: settings.compliance.opt_in_required,
  };
}

// The queue of a variant: waiting signups that may be sent to now, oldest first (index
// bis_signups_waiting). Others stay waiting: a channel switched on again, consent given, or stock
// at a location of the signup's market (signupMarketStockedSql, decision 0246) lets them into a
// later run. The parameters are the shop, the variant, the channels (text[]) and whether consent
// is required.
const eligibleSql = (shop: string, variant: string, channels: string, optIn: string) => `s.shop_id = ${shop} and s.variant_id = ${variant} and s.status = 'waiting'
  and s.channel = any(${channels}::text[]) and (s.consent or not ${optIn}) and ${signupMarketStockedSql("s")}`;
const ELIGIBLE = eligibleSql("$1", "$2", "$3", "$4");

/** Whether an eligible signup waits (after the cursor of the run `runId`, when given: the ones before it are claimed, or were not eligible when it passed). */
async function anyEligibleWaiting(db: Db, shopId: string, variantId: string, e: Eligibility, runId?: string): Promise<boolean> {
  const { rows } = await db.query<{ any: boolean }>(
    `select exists (
       select 1 from bis_signups s where ${ELIGIBLE}
         and not exists (select 1 from bis_alert_runs r where r.id = $5 and r.cursor_id is not null and (s.created_at, s.id) <= (r.cursor_created_at, r.cursor_id))
     ) as any`,
    [shopId, variantId, e.channels, e.optInRequired, runId ?? null],
  );
  return rows[0]?.any ?? false;
}

/**
 * Claims the next chunk of the queue for the run's batch, in one statement, within the quota the
 * batch has left on the run row (locked: the restock burst claims from the same quota), and
 * reserves the plan's monthly quota for it (src/account/plans.ts: under the shop's quota lock, so
 * call it in a transaction; the claimed rows the quota does not admit are refused at send). The
 * rows are written leased to `holder` (the batch's connection), so their send takes them with no
 * lease write. The claimed signups stay `waiting` (the mark moves them): the run's cursor passes
 * them. Answers the ledger ids, how many signups the chunk took from the queue (some may have had
 * the stage claimed already: the restock burst's first) and the quota left before the claim.
 */
export async function claimChunk(
  db: Db,
  runId: string,
  shopId: string,
  variantId: string,
  limit: number,
  e: Eligibility,
  holder?: LeaseHolder,
): Promise<{ ids: string[]; picked: number; quotaLeft: number }> {
  const period = monthPeriod();
  await lockQuota(db, shopId);
  const planLimit = (await loadPlan(db, shopId)).monthlyAlertLimit;
  let used = await quotaUsed(db, shopId, period);
  if (used + limit > planLimit) {
    // Near the limit: a reservation left behind by a deleted row must not hold room.
    await recountReserved(db, shopId);
    used = await quotaUsed(db, shopId, period);
  }
  const { rows } = await db.query<{ quota_left: number; picked: number; ids: string[] }>(
    `with run as (
       select greatest(coalesce(batch_quota, 0) - batch_claimed, 0) as quota_left, cursor_created_at, cursor_id from bis_alert_runs where id = $6 for update
     ), picked as (
       -- From the run's cursor on (keyset): a signup claimed stays waiting until its mark, so the
       -- queue is passed by position, not by status. Locked (a concurrent unsubscribe is waited
       -- for, then seen); never skipped, or the cursor would pass it for good.
       select s.id, s.created_at, s.channel from bis_signups s
       where ${ELIGIBLE}
         -- One row comparison (no "cursor is null or"), so that it bounds the index scan to the
         -- entries after the cursor: as a filter, every chunk read the queue again from its start.
         and (s.created_at, s.id) > (coalesce((select cursor_created_at from run), '-infinity'::timestamptz),
                                     coalesce((select cursor_id from run), '00000000-0000-0000-0000-000000000000'::uuid))
       order by s.created_at, s.id
       limit least($5, (select quota_left from run))
       for update of s
     ), claimed as (
       -- The first $8 in the queue's order get the plan's quota (the month $9).
       insert into bis_ledger (shop_id, signup_id, stage, lease_pid, lease_backend_start, quota_period)
       select $1, p.id, 'initial', ${leaseValues("$7")}, case when p.rank <= $8::int then $9::date end
       from (select id, created_at, row_number() over (order by created_at, id) as rank from picked) p
       order by p.created_at, p.id
       on conflict (signup_id, stage) do nothing
       returning id, signup_id, created_at, quota_period
     ), reserved as (
       insert into account_send_usage (shop_id, period_start, channel, reserved)
       select $1, $9::date, p.channel, count(*) from claimed c join picked p on p.id = c.signup_id
       where c.quota_period is not null group by p.channel
       on conflict (shop_id, period_start, channel) do update set reserved = account_send_usage.reserved + excluded.reserved
     ), last as (
       select created_at, id from picked order by created_at desc, id desc limit 1
     ), counted as (
       update bis_alert_runs set batch_claimed = batch_claimed + (select count(*) from claimed),
         notified = notified + (select count(*) from claimed), updated_at = now(),
         cursor_created_at = coalesce((select created_at from last), cursor_created_at), cursor_id = coalesce((select id from last), cursor_id)
       where id = $6
     )
     select coalesce((select quota_left from run), 0)::int as quota_left, (select count(*) from picked)::int as picked,
            array(select id from claimed order by created_at, id) as ids`,
    [shopId, variantId, e.channels, e.optInRequired, limit, runId, holder?.pid ?? null, Math.max(0, planLimit - used), periodKey(period)],
  );
  return { ids: rows[0]?.ids ?? [], picked: rows[0]?.picked ?? 0, quotaLeft: rows[0]?.quota_left ?? 0 };
}

interface RunRow {
  id: string;
  status: string;
  batches: number;
  notified: number;
  batch_started_at: Date | null;
  batch_quota: number | null;
  batch_claimed: number;
  next_batch_at: Date | null;
  trigger: string;
}

async function finishRun(db: Db, runId: string, status: "completed" | "stopped", reason: string | null, available?: number): Promise<void> {
  await db.query(
    `update bis_alert_runs set status = $2, stop_reason = $3, finished_at = now(), updated_at = now(),
       batch_started_at = null, batch_quota = null, batch_claimed = 0, next_batch_at = null, last_available = coalesce($4, last_available)
     where id = $1`,
    [runId, status, reason, available ?? null],
  );
}

/**
 * Claimed initial messages of this variant that nobody is sending (a crashed batch): sent now,
 * before the batch claims more. A row with a retry job waiting is left to that job.
 */
async function resendOrphans(deps: AlertDeps, shopId: string, variantId: string, options: SendOptions): Promise<SendSummary> {
  const { rows } = await deps.pool.query<{ id: string }>(
    `select l.id from bis_ledger l join bis_signups s on s.id = l.signup_id
     where l.shop_id = $1 and l.status = 'pending' and l.stage = 'initial' and s.variant_id = $2 and ${LEASE_DEAD}
       and not ${liveJobWithKey("$3 || ':' || l.id")}`,
    [shopId, variantId, sendTask.name],
  );
  const summary = emptySummary();
  for (let i = 0; i < rows.length; i += CHUNK_SIZE) {
    addSummary(summary, await sendLedgerRows(deps, rows.slice(i, i + CHUNK_SIZE).map((r) => r.id), { mode: "job" }, options));
  }
  return summary;
}

interface BatchResult {
  outcome: "busy" | "no_run" | "waiting" | "completed" | "stopped" | "next_batch" | "interrupted";
  run_id?: string;
  stop_reason?: string;
  available?: number;
  quota?: number;
  claimed?: number;
  sent?: SendSummary;
  next_batch_at?: string;
}

interface BatchOptions {
  signal?: AbortSignal | undefined;
  chunkSize?: number;
  chunksInFlight?: number;
}

/**
 * One batch of the variant's alert run (the `bis_alert_run` task). Holds a transaction-level
 * advisory lock on the run key for its whole length, so two jobs of one run never overlap (a
 * crashed holder's lock goes with its connection).
 */
export async function runAlertBatch(deps: AlertDeps, payload: AlertRunPayload, options: BatchOptions = {}): Promise<BatchResult> {
  const key = alertRunKey(payload.shop_id, payload.variant_id);
  const lock = await deps.pool.connect();
  let broken = false;
  try {
    await lock.query("begin");
    const { rows } = await lock.query<{ got: boolean }>("select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as got", [key]);
    if (!rows[0]?.got) return { outcome: "busy" };
    // The batch's sends lease their rows to this connection: they die with it.
    return await batch(deps, payload, options, await leaseHolder(lock));
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    await lock.query("commit").catch(() => {
      broken = true;
    });
    lock.release(broken);
  }
}

async function batch(deps: AlertDeps, payload: AlertRunPayload, options: BatchOptions, holder: LeaseHolder): Promise<BatchResult> {
  const { pool, log } = deps;
  const { shop_id: shopId, variant_id: variantId } = payload;
  const trigger = payload.trigger ?? "inventory_webhook";
  const [settings, switches] = await Promise.all([loadBackInStockSettings(pool, shopId), stageSwitches(pool, shopId)]);
  const e = eligibility(settings);
  const minimum = settings.delivery.minimum_restock_quantity;

  let run = (await pool.query<RunRow>("select * from bis_alert_runs where shop_id = $1 and variant_id = $2 and status = 'running'", [shopId, variantId])).rows[0];
  if (!run) {
    if (!switches.initial || !(await anyEligibleWaiting(pool, shopId, variantId, e))) return { outcome: "no_run" };
    run = (
      await pool.query<RunRow>(
        `insert into bis_alert_runs (shop_id, variant_id, trigger) values ($1, $2, $3)
         on conflict (shop_id, variant_id) where status = 'running' do nothing
         returning *`,
        [shopId, variantId, trigger],
      )
    ).rows[0];
    if (!run) return { outcome: "busy" };
  }
  const runId = run.id;
  if (run.next_batch_at && run.next_batch_at.getTime() > Date.now() + 500) {
    // Early (a restock while the run waits between batches): the batch keeps its time.
    await scheduleBatch(pool, shopId, variantId, run.next_batch_at, trigger);
    return { outcome: "waiting", run_id: runId, next_batch_at: run.next_batch_at.toISOString() };
  }
  if (!switches.initial) {
    await finishRun(pool, runId, "stopped", "stage_disabled");
    return { outcome: "stopped", run_id: runId, stop_reason: "stage_disabled" };
  }

  // One limit for the whole batch: its chunks in flight together stay within SEND_CONCURRENCY.
  const sendOptions: SendOptions = { contexts: new SendContexts(deps), limit: sendLimit(deps), holder };
  const sent = await resendOrphans(deps, shopId, variantId, sendOptions);

  // The first batch of a run a restock webhook (or a sync's write) opened is sized by the stock it wrote
  // (openRestockRuns): no live read before a customer's first alert. Later batches read live.
  const fromWebhook = run.batches === 1 && run.batch_started_at !== null && RESTOCK_WRITE_TRIGGERS.includes(run.trigger);
  const stock = fromWebhook
    ? { available: (await mirrorStock(pool, shopId, variantId)).available, source: "mirror" as const }
    : await batchStock(pool, deps.platform, log, shopId, variantId);
  if (stock.available < minimum) {
    await finishRun(pool, runId, "stopped", "out_of_stock", stock.available);
    return { outcome: "stopped", run_id: runId, stop_reason: "out_of_stock", available: stock.available, sent };
  }
  const fresh = Math.floor(settings.delivery.batch_multiplier * stock.available);
  let quota: number;
  let batchStart: Date;
  if (run.batch_started_at) {
    // A batch that did not finish (its worker died): it continues, within what the stock allows now.
    quota = Math.min(run.batch_quota ?? fresh, fresh);
    batchStart = run.batch_started_at;
    await pool.query("update bis_alert_runs set batch_quota = $3, last_available = $2, updated_at = now() where id = $1", [runId, stock.available, quota]);
  } else {
    quota = fresh;
    const { rows } = await pool.query<{ batch_started_at: Date }>(
      `update bis_alert_runs set batch_started_at = now(), batch_quota = $2, batch_claimed = 0, batches = batches + 1,
         last_available = $3, updated_at = now()
       where id = $1 returning batch_started_at`,
      [runId, quota, stock.available],
    );
    batchStart = rows[0]?.batch_started_at ?? new Date();
    run.batch_claimed = 0;
  }

  const chunkSize = options.chunkSize ?? CHUNK_SIZE;
  const chunksInFlight = options.chunksInFlight ?? CHUNKS_IN_FLIGHT;
  // An upper bound (the burst may have claimed some): claimChunk keeps the quota exact.
  let remaining = quota - run.batch_claimed;
  let claimedNow = 0;
  let exhausted = false;
  let stopReason: string | undefined;
  let stopAvailable: number | undefined;
  const inFlight = new Set<Promise<void>>();
  const failures: unknown[] = [];
  while (remaining > 0 && failures.length === 0) {
    if (options.signal?.aborted) break;
    // A webhook that lowered the stock since the batch began stops it between chunks.
    const news = await mirrorStock(pool, shopId, variantId);
    const newer = stock.source === "mirror" || (news.changedAt !== null && news.changedAt > batchStart);
    if (newer && news.available < minimum) {
      stopReason = "out_of_stock";
      stopAvailable = news.available;
      break;
    }
    const { ids, picked, quotaLeft } = await withTransaction(pool, (db) => claimChunk(db, runId, shopId, variantId, Math.min(chunkSize, remaining), e, holder));
    if (picked === 0) {
      // Nobody left to claim, or the quota is used (by the restock burst): only the first ends the run.
      exhausted = quotaLeft > 0;
      break;
    }
    if (ids.length === 0) continue;
    remaining -= ids.length;
    claimedNow += ids.length;
    const sending: Promise<void> = sendLedgerRows(deps, ids, { mode: "job" }, sendOptions).then(
      (s) => void addSummary(sent, s),
      (error: unknown) => void failures.push(error),
    );
    inFlight.add(sending);
    void sending.finally(() => inFlight.delete(sending));
    if (inFlight.size >= chunksInFlight) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  // A chunk that failed to mark leaves its rows pending: this job's retry (a resumed batch) sends them.
  if (failures.length > 0) throw failures[0];

  const result = { run_id: runId, available: stock.available, quota, claimed: claimedNow, sent };
  if (stopReason) {
    await finishRun(pool, runId, "stopped", stopReason, stopAvailable);
    return { ...result, outcome: "stopped", stop_reason: stopReason };
  }
  if (options.signal?.aborted) {
    // Shutting down mid-batch: the batch stays open on the run row and resumes in another job now.
    await scheduleBatch(pool, shopId, variantId, new Date(), trigger);
    return { ...result, outcome: "interrupted" };
  }
  if (exhausted || !(await anyEligibleWaiting(pool, shopId, variantId, e, runId))) {
    await finishRun(pool, runId, "completed", null);
    return { ...result, outcome: "completed" };
  }
  const next = new Date(batchStart.getTime() + settings.delivery.batch_interval_seconds * 1000);
  await withTransaction(pool, async (db) => {
    await db.query(
      `update bis_alert_runs set batch_started_at = null, batch_quota = null, batch_claimed = 0, next_batch_at = $2, updated_at = now()
       where id = $1`,
      [runId, next],
    );
    await scheduleBatch(db, shopId, variantId, next, trigger);
  });
  return { ...result, outcome: "next_batch", next_batch_at: next.toISOString() };
}

/** What decides whether a restock opens alert runs: the shop's settings and stage switches. */
export interface RestockRules {
  settings: BackInStockSettings;
  switches: Record<Stage, boolean>;
}

export async function loadRestockRules(db: Db, shopId: string): Promise<RestockRules> {
  const [settings, switches] = await Promise.all([loadBackInStockSettings(db, shopId), stageSwitches(db, shopId)]);
  return { settings, switches };
}

/** What restockRulesColumns reads. */
export interface StoredRestockRules {
  settings: unknown;
  switches: Record<string, boolean> | null;
}

/** The columns `settings` and `switches` restockRulesFrom takes, of the shop `shop` (an SQL expression): for a statement that reads them beside its own work. */
export function restockRulesColumns(shop: string): string {
  return `(select b.settings from bis_settings b where b.shop_id = ${shop}) as settings,
    (select jsonb_object_agg(m.stage, m.enabled) from message_stage_settings m where m.shop_id = ${shop} and m.area = 'back_in_stock') as switches`;
}

/**
 * The rules from what a statement of the caller read beside its own work (the intake reads them
 * with the shop): `settings` is bis_settings.settings (or null), `switches` the shop's
 * message_stage_settings of back in stock, stage to enabled. Laid over the defaults and checked
 * as loadBackInStockSettings does.
 */
export function restockRulesFrom(shopId: string, stored: StoredRestockRules): RestockRules {
  const partial = typeof stored.settings === "object" && stored.settings !== null && !Array.isArray(stored.settings) ? stored.settings : {};
  const parsed = backInStockSettingsSchema.safeParse(mergeDeep(DEFAULT_BACK_IN_STOCK_SETTINGS, partial, backInStockSettingsSchema));
  if (!parsed.success) throw new Error(`back-in-stock settings of shop ${shopId} are invalid: ${formatIssues(parsed.error.issues).map(issueText).join("; ")}`);
  return { settings: parsed.data, switches: stageSwitchesOver(Object.entries(stored.switches ?? {})) };
}

/** A variant's stock before an inventory write (itemStocks), what openRestockRuns compares the stock after it with. */
export interface StockBefore {
  variant_id: string;
  available: number;
}

/**
 * Wraps an inventory level write (the inventory webhook): every variant of the item whose stock
 * rose to at least the shop's minimum, with eligible signups waiting, gets an alert run, in the
 * write's transaction. `rules` when the caller has read them already.
 */
export async function detectRestock<T>(db: Db & PreparingDb, shopId: string, inventoryItemId: string, write: () => Promise<T>, rules?: RestockRules): Promise<T> {
  const before = [...(await itemStocks(db, shopId, inventoryItemId)).values()].map((v) => ({ variant_id: v.variantId, available: v.available }));
  const result = await write();
  await openRestockRuns(db, shopId, inventoryItemId, before, rules ?? (await loadRestockRules(db, shopId)));
  return result;
}

/**
 * Queues a restock burst for the shop in the caller's transaction (the durable webhook job's
 * path), ahead of other work (graphile-worker runs lower priority numbers first). No job key: in a
 * transaction the key's row would stay locked until the commit, and the transactions of a hundred
 * webhooks at once would wait for each other. A burst serves every run opened so far; the ones
 * after it find nothing left and end after one query. The webhook intake queues its burst after
 * its commit instead (queueRestockBurst).
 */
async function requestRestockBurst(db: Db, shopId: string): Promise<void> {
  await enqueue(db, restockBurstTask, { shop_id: shopId }, { priority: -10, maxAttempts: 5 });
}

/**
 * Queues the shop's restock burst on its own, after the transaction that opened runs committed
 * (the webhook intake): under one job key per shop, so a wave of webhooks runs a burst or two, not
 * one each. A burst not yet started is kept (and serves this restock too: it reads the runs when
 * it starts, after this commit); one already running keeps going and a new one is queued
 * (graphile-worker moves the key), unless a worker claims it during add_job (it then started after
 * this commit: enqueueAfterCommit). A crash before this leaves the runs to the recovery sweep.
 *
 * The calls of one shop on one pool are coalesced (src/core/coalesce.ts): while its add_job is in
 * flight, the calls that arrive share the next one, which starts after their commits as each of
 * theirs would have. A hundred webhooks at once made a hundred add_jobs on the key's one row, each
 * waiting for the row lock of the one before and a third of each intake's time.
 */
export function queueRestockBurst(pool: pg.Pool, shopId: string): Promise<void> {
  let queue = burstQueues.get(pool);
  if (!queue) burstQueues.set(pool, (queue = coalescing((shop: string) => addRestockBurst(pool, shop))));
  return queue(shopId);
}

const burstQueues = new WeakMap<pg.Pool, (shopId: string) => Promise<void>>();

async function addRestockBurst(pool: pg.Pool, shopId: string): Promise<void> {
  // "replace" (the default mode): a pending burst is due now (queued behind other shops' bursts
  // queued before), and one waiting out a failed attempt's backoff runs now with its attempts
  // reset: a new restock needs a burst now, whatever an earlier one met. A running one keeps
  // going, without its key and its retries (recovery sweeps what it leaves).
  await enqueueAfterCommit(pool, restockBurstTask, { shop_id: shopId }, { jobKey: `${restockBurstTask.name}:${shopId}`, priority: -10, maxAttempts: 5 });
}

/**
 * In one statement: the stock of the item's variants after the write (of the items', `$2` an
 * array, for a sync's page), compared with `before`; each variant whose stock rose, to at least
 * the minimum, with an eligible signup waiting, is a restock. Each gets its run opened (trigger
 * `$9`) with the first batch sized by the stock the write wrote (when the initial stage is on and
 * no run is under way: otherwise that run's batches go on as they are). Answers the variants
 * opened and the other restocked ones. Named: prepared once per connection (planning it cost more
 * than running it, once per inventory webhook).
 */
const openRestockRunsStatement = (name: string, items: string) => ({
  name,
  text: `
  with after as (${itemStocksQuery("$1::uuid", items)}
  ), rose as (
    select a.variant_id, a.available from after a
    where a.available > coalesce((select b.available from jsonb_to_recordset($3::jsonb) as b(variant_id text, available int) where b.variant_id = a.variant_id), 0)
      and a.available >= $4::int
      and exists (select 1 from bis_signups s where ${eligibleSql("$1", "a.variant_id", "$5", "$6::boolean")})
  ), opened as (
    insert into bis_alert_runs (shop_id, variant_id, trigger, batches, batch_started_at, batch_quota, batch_claimed, last_available)
    select $1, variant_id, $9::text, 1, now(), floor($7::float8 * available)::int, 0, available from rose where $8::boolean
    on conflict (shop_id, variant_id) where status = 'running' do nothing
    returning variant_id
  )
  select array(select variant_id from opened) as opened,
         array(select variant_id from rose where variant_id not in (select variant_id from opened)) as others`,
});
const OPEN_RESTOCK_RUNS = openRestockRunsStatement("bis_open_restock_runs", "$2::text");
const OPEN_RESTOCK_RUNS_OF_ITEMS = openRestockRunsStatement("bis_open_restock_runs_of_items", "any($2::text[])");

/**
 * After an inventory write (in its transaction): opens the runs of the variants it restocked
 * (OPEN_RESTOCK_RUNS) and queues the shop's burst for them in the transaction unless `burst`
 * is "after_commit" (the caller then calls queueRestockBurst once it committed); a restocked
 * variant whose run is already under way, or whose initial stage is off, gets a batch request
 * instead (that run's batch goes on, or stops the run). Answers how many runs it opened.
 *
 * A run opened here gets its batch job from the burst, once the burst has sent (and taken the
 * quota for) its first message: the oldest signup goes first, also under the plan's quota.
 */
export async function openRestockRuns(
  db: Db & PreparingDb,
  shopId: string,
  inventoryItemId: string,
  before: readonly StockBefore[],
  rules: RestockRules,
  burst: "in_transaction" | "after_commit" = "in_transaction",
): Promise<number> {
  const opened = await openRuns(db, OPEN_RESTOCK_RUNS, shopId, inventoryItemId, before, rules, "inventory_webhook");
  if (burst === "in_transaction" && opened > 0) await requestRestockBurst(db, shopId);
  return opened;
}

/**
 * openRestockRuns for a catalog sync's page of levels (its items' variants' stock `before` the
 * page's write, in its transaction): a sync that mirrors a restock before its webhook arrives
 * opens the runs itself (trigger catalog_sync), since the webhook then finds the stock already
 * written and sees no rise. The caller queues the shop's burst once it committed
 * (queueRestockBurst). Answers how many runs it opened.
 */
export async function openMirroredRestockRuns(
  db: Db & PreparingDb,
  shopId: string,
  inventoryItemIds: readonly string[],
  before: readonly StockBefore[],
  rules: RestockRules,
): Promise<number> {
  return openRuns(db, OPEN_RESTOCK_RUNS_OF_ITEMS, shopId, inventoryItemIds, before, rules, "catalog_sync");
}

async function openRuns(
  db: Db & PreparingDb,
  statement: { name: string; text: string },
  shopId: string,
  items: string | readonly string[],
  before: readonly StockBefore[],
  rules: RestockRules,
  trigger: RestockWriteTrigger,
): Promise<number> {
  const { settings, switches } = rules;
  const e = eligibility(settings);
  const { rows } = await db.query<{ opened: string[]; others: string[] }>({
    ...statement,
    values: [
      shopId,
      items,
      JSON.stringify(before),
      settings.delivery.minimum_restock_quantity,
      e.channels,
      e.optInRequired,
      settings.delivery.batch_multiplier,
      switches.initial,
      trigger,
    ],
  });
  const { opened = [], others = [] } = rows[0] ?? {};
  for (const variantId of others) await requestAlertRun(db, shopId, variantId, "inventory_webhook");
  return opened.length;
}

/**
 * The restock burst (the `bis_restock_burst` task): the first message of every run a restock
 * opened that has claimed nothing yet, claimed in one statement (one per variant, each the
 * variant's oldest eligible signup, within its batch's quota) and sent at once. Then each of those
 * runs gets its batch job, which sends the rest of the batch (claiming from the same quota, on the
 * same locked run row). A burst that dies leaves its runs to the recovery sweep (recoverRuns).
 */
export async function runRestockBurst(deps: AlertDeps, shopId: string): Promise<{ variants: number; sent: SendSummary }> {
  const { pool } = deps;
  // One query, and the end of it for the bursts of a restock that an earlier burst served.
  const { rows: found } = await pool.query<{ waiting: boolean } & StoredRestockRules>(
    `select exists (select 1 from bis_alert_runs r where ${BURST_RUNS}) as waiting, ${restockRulesColumns("$1::uuid")}`,
    [shopId],
  );
  if (!found[0]?.waiting) return { variants: 0, sent: emptySummary() };
  const { settings, switches } = restockRulesFrom(shopId, found[0]);
  if (!switches.initial) {
    // Nothing to send: the runs' batches stop them (stage_disabled).
    const { rows } = await pool.query<{ variant_id: string }>(`select r.variant_id from bis_alert_runs r where ${BURST_RUNS}`, [shopId]);
    await queueBatches(pool, shopId, rows.map((r) => r.variant_id));
    return { variants: 0, sent: emptySummary() };
  }
  const e = eligibility(settings);
  const { rows } = await pool.query<{ variants: string[]; ids: string[] }>(
    `with runs as (
       select r.id, r.variant_id, r.started_at, r.batch_quota from bis_alert_runs r
       where ${BURST_RUNS}
       for update of r skip locked
     ), picked as (
       select runs.id as run_id, runs.started_at, first.id, first.created_at from runs
       cross join lateral (
         select s.id, s.created_at from bis_signups s
         where s.shop_id = $1 and s.variant_id = runs.variant_id and s.status = 'waiting'
           and s.channel = any($2::text[]) and (s.consent or not $3) and ${signupMarketStockedSql("s")}
         order by s.created_at, s.id
         limit 1
         for update skip locked
       ) first
       where runs.batch_quota > 0
     ), claimed as (
       -- The signup stays waiting until its mark (as a batch's claims: claimChunk).
       insert into bis_ledger (shop_id, signup_id, stage)
       select $1, id, 'initial' from picked
       on conflict (signup_id, stage) do nothing
       returning id, signup_id
     ), counted as (
       update bis_alert_runs r set batch_claimed = batch_claimed + 1, notified = notified + 1, updated_at = now()
       from picked p join claimed c on c.signup_id = p.id where r.id = p.run_id
     )
     select array(select variant_id from runs) as variants,
            array(select c.id from claimed c join picked p on p.id = c.signup_id order by p.started_at, p.created_at) as ids`,
    [shopId, e.channels, e.optInRequired],
  );
  const { variants = [], ids = [] } = rows[0] ?? {};
  try {
    // Ahead of every follow-up already waiting for a connection.
    return { variants: ids.length, sent: await sendLedgerRows(deps, ids, { mode: "job" }, { priority: 1 }) };
  } finally {
    // The runs this burst took (locked) get their batch jobs: after their first messages took the quota.
    await queueBatches(pool, shopId, variants);
  }
}

/** Runs a restock opened whose first batch has claimed nothing yet: a burst's to serve ($1: the shop). */
const BURST_RUNS = `r.shop_id = $1 and r.status = 'running' and r.batches = 1 and r.batch_started_at is not null
  and r.batch_claimed = 0 and r.trigger in (${RESTOCK_WRITE_TRIGGERS.map((t) => `'${t}'`).join(", ")})`;

async function queueBatches(pool: pg.Pool, shopId: string, variantIds: readonly string[]): Promise<void> {
  if (variantIds.length === 0) return;
  await withTransaction(pool, async (db) => {
    for (const variantId of variantIds) await requestAlertRun(db, shopId, variantId, "inventory_webhook");
  });
}

/**
 * The periodic inventory check (crontab): every variant with eligible signups waiting, stock at
 * or above the minimum in the mirror (kept by webhooks and the catalog sync) and no run under
 * way gets one. Catches restocks whose webhook was missed or that arrived by a catalog sync.
 */
export async function checkInventory(pool: pg.Pool): Promise<{ shops: number; runs_requested: number }> {
  const { rows: shops } = await pool.query<{ id: string }>(
    "select id from shops s where exists (select 1 from bis_signups w where w.shop_id = s.id and w.status = 'waiting')",
  );
  let requested = 0;
  for (const { id: shopId } of shops) {
    const settings = await loadBackInStockSettings(pool, shopId);
    const e = eligibility(settings);
    const { rows } = await pool.query<{ variant_id: string }>(
      `select w.variant_id from (
         select distinct s.variant_id from bis_signups s
         where s.shop_id = $1 and s.status = 'waiting' and s.channel = any($2::text[]) and (s.consent or not $3)
           and ${signupMarketStockedSql("s")}
       ) w
       cross join lateral (
         select coalesce(sum(greatest(il.available, 0)), 0) as available
         from variants v join inventory_levels il on il.shop_id = v.shop_id and il.inventory_item_id = v.inventory_item_id
         where v.shop_id = $1 and v.id = w.variant_id
           and not exists (select 1 from locations l where l.shop_id = il.shop_id and l.id = il.location_id and not l.active)
       ) stock
       where stock.available >= $4
         and not exists (select 1 from bis_alert_runs r where r.shop_id = $1 and r.variant_id = w.variant_id and r.status = 'running')`,
      [shopId, e.channels, e.optInRequired, settings.delivery.minimum_restock_quantity],
    );
    for (const row of rows) {
      await requestAlertRun(pool, shopId, row.variant_id, "inventory_check");
      requested += 1;
    }
  }
  return { shops: shops.length, runs_requested: requested };
}

/**
 * Runs whose batch job is gone (its worker was killed while holding it: graphile-worker keeps
 * such a job locked for hours): when no live batch holds the run's lock, a new job under the
 * key resumes the run (at its next batch time, or now for an open batch).
 */
export async function recoverRuns(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ id: string; shop_id: string; variant_id: string; next_batch_at: Date | null; trigger: string }>(
    `select r.id, r.shop_id, r.variant_id, r.next_batch_at, r.trigger from bis_alert_runs r
     where r.status = 'running'
       and not ${liveJobWithKey("$1 || ':' || r.shop_id || ':' || r.variant_id", { unlocked: true })}`,
    [alertRunTask.name],
  );
  let recovered = 0;
  for (const run of rows) {
    const resumed = await withTransaction(pool, async (db) => {
      const { rows: got } = await db.query<{ got: boolean }>("select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as got", [
        alertRunKey(run.shop_id, run.variant_id),
      ]);
      if (!got[0]?.got) return false; // a live batch holds it
      const runAt = run.next_batch_at && run.next_batch_at.getTime() > Date.now() ? run.next_batch_at : new Date();
      await scheduleBatch(db, run.shop_id, run.variant_id, runAt, run.trigger);
      return true;
    });
    if (resumed) recovered += 1;
  }
  return recovered;
}
