import { z } from "zod";
import type { Db } from "../../core/db.ts";
import { declareTask, enqueue } from "../../core/tasks.ts";

/**
 * The counters the checkout's validation reads to refuse a cart past `limits.total.max` or
 * `limits.per_customer.max` before the order (decision 0211): the offers' remaining units on the
 * shop, a customer's units per offer on the customer. Their writes are queued here, in the
 * transaction of the change that moves them (an order's ingest, cancel, refund or edit; an offer's
 * change), so no committed change misses its write and a rolled-back one queues none. Imports only
 * the core, so the order and offer code can call it.
 *
 * Each write is keyed (the shop's, and each customer's: a burst of orders is one write of the count
 * as it is when the job runs) and a key's writes run one at a time in the key's own queue, so an
 * older count never lands after a newer one; the keys do not wait on each other (a backfill of many
 * customers does not hold the shop's remaining counter back). graphile-worker retries a failed write
 * with its backoff.
 */

export const remainingSyncTask = declareTask({ name: "preorders_limit_remaining_sync", payload: z.object({ shop_id: z.uuid() }) });
export const customerUnitsSyncTask = declareTask({ name: "preorders_limit_customer_sync", payload: z.object({ shop_id: z.uuid(), customer_id: z.string().min(1) }) });
export const customerBackfillTask = declareTask({ name: "preorders_limit_customer_backfill", payload: z.object({ shop_id: z.uuid(), offer_id: z.uuid() }) });

/** Attempts before graphile-worker gives up (its backoff: e^attempt seconds, about 6 hours in all). */
const MAX_ATTEMPTS = 10;

export const remainingSyncKey = (shopId: string): string => `preorder_limit_remaining:${shopId}`;
export const customerUnitsSyncKey = (shopId: string, customerId: string): string => `preorder_limit_customer:${shopId}:${customerId}`;

/** `limits.<rule>.max` is set (a number) on the offer's settings. */
const LIMITED = (rule: "total" | "per_customer", alias = "po") => `jsonb_typeof(${alias}.settings #> '{limits,${rule},max}') = 'number'`;

export async function enqueueRemainingSync(db: Db, shopId: string): Promise<void> {
  const key = remainingSyncKey(shopId);
  await enqueue(db, remainingSyncTask, { shop_id: shopId }, { queueName: key, jobKey: key, maxAttempts: MAX_ATTEMPTS });
}

export async function enqueueCustomerUnitsSync(db: Db, shopId: string, customerIds: readonly string[]): Promise<void> {
  // On the caller's transaction (a backfill queues its customers in one): each in its own queue.
  for (const customerId of [...new Set(customerIds)].sort()) {
    const key = customerUnitsSyncKey(shopId, customerId);
    await enqueue(db, customerUnitsSyncTask, { shop_id: shopId, customer_id: customerId }, { queueName: key, jobKey: key, maxAttempts: MAX_ATTEMPTS });
  }
}

/**
 * After a change to these orders' lines or state (ingest, cancel, refund, an edit): queues the
 * shop's remaining counter when one of their offers (`offerIds` adds offers the change took lines
 * off) has a total.max, and the counters of the customers the orders count for when one has a
 * per_customer.max: the order's customer, and the customers of other orders with its e-mail address
 * (the per-customer rule counts both). Orders of offers without these limits queue nothing.
 */
export async function queueLimitCountersForOrders(db: Db, shopId: string, orderIds: readonly string[], offerIds: readonly string[] = []): Promise<void> {
  if (orderIds.length === 0) return;
  const { rows } = await db.query<{ total: boolean | null; per_customer: boolean | null }>(
    `select bool_or(${LIMITED("total")}) as total, bool_or(${LIMITED("per_customer")}) as per_customer
     from preorder_offers po
     where po.shop_id = $1 and po.deleted_at is null
       and (po.id = any($3::uuid[]) or po.id in (select l.offer_id from preorder_order_lines l where l.order_id = any($2::uuid[]) and l.offer_id is not null))`,
    [shopId, orderIds, offerIds],
  );
  const limits = rows[0];
  if (limits?.total === true) await enqueueRemainingSync(db, shopId);
  if (limits?.per_customer !== true) return;
  // The orders' e-mail addresses first, then a union of two selects each on its index (the primary
  // key; the shop's e-mails): an `or` of both reads every order of the shop with a customer.
  const { rows: customers } = await db.query<{ customer_id: string }>(
    `with emails as (select array_agg(distinct e.email) as list from preorder_orders e where e.id = any($2::uuid[]) and e.shop_id = $1 and e.email is not null)
     select o.customer_id from preorder_orders o where o.id = any($2::uuid[]) and o.shop_id = $1 and o.customer_id is not null
     union
     select o.customer_id from preorder_orders o where o.shop_id = $1 and o.email = any((select list from emails)::text[]) and o.customer_id is not null`,
    [shopId, orderIds],
  );
  await enqueueCustomerUnitsSync(db, shopId, customers.map((c) => c.customer_id));
}

/**
 * After a committed change to an offer (its limits, its status, its deletion): the shop's remaining
 * counter when the offer has a total.max or had one (the value names it), and, the first time the
 * offer has a per_customer.max, the counters of every customer with live orders of it (a job: there
 * can be many). Called with the offer's sync (enqueueOfferWork).
 */
export async function queueLimitCountersForOffer(db: Db, shopId: string, offerId: string): Promise<void> {
  const { rows } = await db.query<{ total: boolean; per_customer: boolean; live: boolean; tracked: boolean; remaining_written: boolean }>(
    `select ${LIMITED("total")} as total, ${LIMITED("per_customer")} as per_customer, po.deleted_at is null as live,
            exists (select 1 from preorder_limit_customer_offers c where c.offer_id = po.id) as tracked,
            exists (select 1 from preorder_limit_counters c where c.shop_id = po.shop_id and c.owner_id = 'shop') as remaining_written
     from preorder_offers po where po.shop_id = $1 and po.id = $2`,
    [shopId, offerId],
  );
  const offer = rows[0];
  if (!offer) return;
  // A change of an offer without a total limit can still take it out of a value written before.
  if (offer.total || offer.remaining_written) await enqueueRemainingSync(db, shopId);
  const wanted = offer.per_customer && offer.live;
  if (wanted && !offer.tracked) {
    await db.query("insert into preorder_limit_customer_offers (offer_id, shop_id) values ($1, $2) on conflict do nothing", [offerId, shopId]);
    await enqueue(db, customerBackfillTask, { shop_id: shopId, offer_id: offerId }, { jobKey: `preorder_limit_customer_backfill:${offerId}`, maxAttempts: MAX_ATTEMPTS });
  } else if (!wanted && offer.tracked) {
    await db.query("delete from preorder_limit_customer_offers where offer_id = $1", [offerId]);
  }
}
