import pLimit, { type LimitFunction } from "p-limit";
import type pg from "pg";
import { z } from "zod";
import { type RestockRules, type StockBefore, type StoredRestockRules, openRestockRuns, queueRestockBurst, restockRulesColumns, restockRulesFrom } from "../back_in_stock/alerts/runs.ts";
import { itemStocksQuery } from "../back_in_stock/alerts/stock.ts";
import { withTransaction } from "../core/db.ts";
import { declareTask, enqueue } from "../core/tasks.ts";
import type { InventoryLevelRecord } from "../platform/catalog.ts";
import type { WebhookTopic } from "../platform/webhooks.ts";
import { inventoryLevelOf } from "./process.ts";
import { inventoryLevelsUpsert } from "../catalog/mirror.ts";

/** Applies a recorded delivery (its run: src/webhooks/jobs/platform-webhook.ts); retried with backoff unless its payload can never be applied. */
export const webhookTask = declareTask({ name: "platform_webhook", payload: z.object({ delivery_id: z.number().int() }) });

type IntakeOutcome = "accepted" | "duplicate" | "unknown_shop" | "other_shop";

interface Delivery {
  shopDomain: string;
  topic: WebhookTopic;
  webhookId: string;
  payload: unknown;
  /** X-Shopify-Triggered-At, as sent (checked fresh by the route); absent: unknown. */
  triggeredAt?: string;
}

/**
 * The level an inventory webhook carries, applied in the intake's own transaction: it is a few
 * statements, and a restock's first alert should not wait for a worker to pick up a job first.
 * Every other topic, and a payload that is not the topic's shape, is left to the durable job
 * (which fails such a payload at once, with the reason).
 */
function levelAppliedAtIntake(delivery: Delivery): InventoryLevelRecord | undefined {
  if (delivery.topic !== "inventory_levels/update") return undefined;
  try {
    return inventoryLevelOf(delivery.payload);
  } catch {
    return undefined;
  }
}

/**
 * Records a verified delivery and queues its processing in one transaction. A webhook id seen
 * before for the shop is a redelivery: recorded once, processed once.
 *
 * The signature covers the body only, not the shop or webhook id headers, so a signed body could
 * be sent again under a new id or another shop's domain. Every payload is therefore remembered by
 * its digest (jsonb's canonical text): one another shop delivered is refused (`other_shop`), one
 * this shop delivered under the same topic is a duplicate whatever its webhook id. The same
 * payload under another topic of the same shop is a distinct event (an order created already paid
 * sends orders/create and orders/paid alike).
 *
 * An inventory level is applied in the same transaction (levelAppliedAtIntake), in few round
 * trips: the shop, the digest, its lock and the shop's restock rules in one statement; the
 * duplicate checks, the insert (marked processed), the item's stock before the write and the
 * level's write in a second (its snapshot is the one before the write); then the restock's runs
 * (openRestockRuns); the shop's burst is queued after the commit, under one key per shop
 * (queueRestockBurst). The larger statements are
 * named (prepared once per connection: planning them cost about as much as running them). When
 * applying fails (a value the database refuses, a deadlock), the whole transaction is rolled back
 * and the delivery is recorded again without it, for the durable job, which retries it or fails it
 * with the reason.
 *
 * At most intakeConcurrency of the pool's connections record deliveries at once (intakeLimit;
 * startService sets it by the process's role); the others wait for one of them, not for a
 * connection. The burst is queued after that, outside the limit: the shop's calls share one
 * add_job in flight (queueRestockBurst).
 */
export async function acceptWebhook(pool: pg.Pool, delivery: Delivery, options: { log?: IntakeLog } = {}): Promise<IntakeOutcome> {
  const recorded = await intakeLimit(pool)(() => recordOrFallBack(pool, delivery));
  // After the commit (the burst reads the runs when it starts), outside the limit: the shop's
  // calls share one add_job in flight (queueRestockBurst), so they hold one connection at most.
  if (recorded.burstFor) await queueBurstOrLeaveToRecovery(pool, recorded.burstFor, delivery, options.log);
  return recorded.outcome;
}

/** Where the intake says what it could not do after its commit (the HTTP route's request log). */
interface IntakeLog {
  warn(details: object, message: string): void;
}

/**
 * The delivery, its level and its runs are committed: a failure to queue their burst now must not
 * answer the platform an error, whose redelivery would be a duplicate that queues nothing. The
 * runs are left to the recovery sweep (bis_alert_recover, every minute), which gives each a batch.
 */
async function queueBurstOrLeaveToRecovery(pool: pg.Pool, shopId: string, delivery: Delivery, log: IntakeLog | undefined): Promise<void> {
  try {
    await queueRestockBurst(pool, shopId);
  } catch (error) {
    log?.warn(
      { shopId, webhookId: delivery.webhookId, topic: delivery.topic, err: error },
      "restock burst not queued after the webhook's commit; the recovery sweep will send its runs",
    );
  }
}

async function recordOrFallBack(pool: pg.Pool, delivery: Delivery): Promise<Recording> {
  const level = levelAppliedAtIntake(delivery);
  if (!level) return record(pool, delivery, undefined);
  try {
    return await record(pool, delivery, level);
  } catch {
    return record(pool, delivery, undefined);
  }
}

const intakeLimits = new WeakMap<pg.Pool, LimitFunction>();

/** Connections of a web-only process's pool the intake leaves to the API's other requests and /readyz. */
const API_RESERVE = 4;

/**
 * How many intake transactions a process's pool of `poolSize` runs at once. Beside the worker (one
 * process for both): a quarter, at least 2, so that the worker's jobs (a restock's burst among
 * them) and the API do not wait for a wave of webhooks to commit. In a web-only process (the
 * Procfile's `web`) nothing else needs the pool but the API: all of it but API_RESERVE. A wave of
 * 100 restock webhooks waited for the quarter (5) more than for anything else: all committed in
 * 490-1,080 ms at five at a time, 110-240 ms at sixteen (issue 30; decision 0236). An intake
 * transaction is mostly waits (five round trips, each woken on a busy CPU), so more at once
 * commit sooner, though each takes longer.
 */
export function intakeConcurrency(poolSize: number, workerInProcess: boolean): number {
  return Math.max(2, workerInProcess ? Math.floor(poolSize / 4) : poolSize - API_RESERVE);
}

/** Sets how many intake transactions `pool` runs at once (startService, by the process's role); before its first delivery. */
export function setIntakeConcurrency(pool: pg.Pool, concurrency: number): void {
  intakeLimits.set(pool, pLimit(concurrency));
}

/** How many intake transactions `pool` runs at once. */
export function intakeConcurrencyOf(pool: pg.Pool): number {
  return intakeLimit(pool).concurrency;
}

/** The limit of intake transactions in flight on `pool`: as set for it, else a quarter of its connections (at least 2). */
function intakeLimit(pool: pg.Pool): LimitFunction {
  let limit = intakeLimits.get(pool);
  if (!limit) {
    limit = pLimit(intakeConcurrency(pool.options?.max ?? 8, true));
    intakeLimits.set(pool, limit);
  }
  return limit;
}

/** A recorded delivery's outcome, and the shop whose restock burst to queue once it committed. */
interface Recording {
  outcome: IntakeOutcome;
  burstFor?: string;
}

async function record(pool: pg.Pool, delivery: Delivery, level: InventoryLevelRecord | undefined): Promise<Recording> {
  const payload = JSON.stringify(delivery.payload);
  return withTransaction(pool, async (db) => {
    const shop = await lockedShop(db, delivery.shopDomain, payload, level !== undefined);
    if (!shop) return { outcome: "unknown_shop" };
    const recorded = await insertDelivery(db, shop, delivery, payload, level);
    if (recorded.outcome !== "accepted") return { outcome: recorded.outcome };
    if (level && shop.rules) {
      // The level itself was written with the delivery (insertDelivery).
      const opened = await openRestockRuns(db, shop.id, level.inventoryItemId, recorded.before, shop.rules, "after_commit");
      return opened > 0 ? { outcome: "accepted", burstFor: shop.id } : { outcome: "accepted" };
    }
    // bigint arrives as a string; the ids stay far below 2^53.
    await enqueue(db, webhookTask, { delivery_id: Number(recorded.id) }, { maxAttempts: 10 });
    return { outcome: "accepted" };
  });
}

interface LockedShop {
  id: string;
  digest: Buffer;
  /** Read with the shop when the intake applies an inventory level. */
  rules?: RestockRules;
}

/**
 * The shop of the domain and the payload's digest, with the digest's lock taken: deliveries of
 * one payload take turns, so two shops racing cannot both claim it. The duplicate checks run in
 * the next statement, whose snapshot sees what the lock's previous holder committed.
 */
const lockedShopQuery = (withRules: boolean) => ({
  name: `webhook_intake_shop${withRules ? "_and_rules" : ""}`,
  text: `select s.id, d.digest, pg_advisory_xact_lock(hashtext('webhook_payload:' || encode(d.digest, 'hex'))) as locked
           ${withRules ? `, ${restockRulesColumns("s.id")}` : ""}
         from shops s cross join (select sha256(convert_to($2::jsonb::text, 'UTF8')) as digest) d
         where s.platform_domain = $1`,
});
const LOCKED_SHOP = { plain: lockedShopQuery(false), withRules: lockedShopQuery(true) };

async function lockedShop(db: pg.ClientBase, shopDomain: string, payload: string, withRules: boolean): Promise<LockedShop | undefined> {
  const { rows } = await db.query<{ id: string; digest: Buffer } & StoredRestockRules>({
    ...(withRules ? LOCKED_SHOP.withRules : LOCKED_SHOP.plain),
    values: [shopDomain, payload],
  });
  const row = rows[0];
  if (!row) return undefined;
  return { id: row.id, digest: row.digest, ...(withRules ? { rules: restockRulesFrom(row.id, row) } : {}) };
}

type Recorded = { outcome: "accepted"; id: string; before: StockBefore[] } | { outcome: "duplicate" | "other_shop" };

/**
 * In one statement: the deliveries of this payload seen before, the insert when none makes this
 * one a duplicate or another shop's (`processed_at` set when the intake applies it), and, for an
 * inventory level, the stock of its item's variants before the write and, when the delivery is
 * inserted, the level's write (the mirror's upsert: an older level keeps the stored stock).
 */
const insertDeliveryQuery = (level: boolean) => ({
  name: `webhook_intake_insert${level ? "_and_stock" : ""}`,
  text: `with seen as (
           select shop_id, topic from webhook_deliveries where payload_sha256 = $5::bytea
         ), inserted as (
           insert into webhook_deliveries (shop_id, webhook_id, topic, payload, payload_sha256, processed_at, triggered_at)
           select $1::uuid, $2::text, $3::text, $4::jsonb, $5::bytea, case when $6::boolean then now() end, $7::timestamptz
           where not exists (select 1 from seen where seen.shop_id <> $1::uuid or seen.topic = $3::text)
           on conflict (shop_id, webhook_id) do nothing
           returning id
         )${level ? `, level as (${inventoryLevelsUpsert("$1::uuid", "$9::jsonb", "now()", "exists (select 1 from inserted)")})` : ""}
         select (select id from inserted) as id, exists (select 1 from seen where seen.shop_id <> $1::uuid) as other_shop,
           ${
             level
               ? `(select jsonb_agg(jsonb_build_object('variant_id', b.variant_id, 'available', b.available)) from (${itemStocksQuery("$1::uuid", "$8::text")}) b)`
               : "null::jsonb"
           } as before`,
});
const INSERT_DELIVERY = { plain: insertDeliveryQuery(false), withStock: insertDeliveryQuery(true) };

async function insertDelivery(db: pg.ClientBase, shop: LockedShop, delivery: Delivery, payload: string, level: InventoryLevelRecord | undefined): Promise<Recorded> {
  const { rows } = await db.query<{ id: string | null; other_shop: boolean; before: StockBefore[] | null }>({
    ...(level ? INSERT_DELIVERY.withStock : INSERT_DELIVERY.plain),
    values: [
      shop.id,
      delivery.webhookId,
      delivery.topic,
      payload,
      shop.digest,
      level !== undefined,
      delivery.triggeredAt ?? null,
      ...(level ? [level.inventoryItemId, JSON.stringify([level])] : []),
    ],
  });
  const row = rows[0];
  if (row?.other_shop) return { outcome: "other_shop" };
  if (!row?.id) return { outcome: "duplicate" };
  return { outcome: "accepted", id: row.id, before: row.before ?? [] };
}
