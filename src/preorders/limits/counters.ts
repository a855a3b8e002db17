import { createHash } from "node:crypto";
import type pg from "pg";
import type { Db } from "../../core/db.ts";
import { PermanentJobFailure } from "../../core/tasks.ts";
import { PlatformError } from "../../platform/errors.ts";
import { getShopMetafield, setMetafields } from "../../platform/operations/metafields.ts";
import type { PlatformRuntime } from "../../platform/runtime.ts";

/**
 * The limit counters on the platform (decision 0211), which the app's cart and checkout validation
 * function reads from its input to refuse a cart past `limits.total.max` or
 * `limits.per_customer.max` before the order:
 *
 * - on the shop, `$app:preorder` `remaining` (json): `{ "<offer id>": units left under total.max }`
 *   for every active offer with a total limit (the function's input query reads
 *   `shop { metafield(namespace: "$app:preorder", key: "remaining") }`);
 * - on each customer with live preorders of an offer with a per-customer limit, `$app:preorder`
 *   `units` (json): `{ "<offer id>": units over the customer's live orders }`
 *   (`cart.buyerIdentity.customer.metafield(namespace: "$app:preorder", key: "units")`).
 *
 * Both are counted by the same SQL functions as the order rules at ingest and the widget's remaining
 * route (sql/116: preorder_offer_remaining, preorder_customer_offer_units). A value is sent only
 * when its digest differs from the one the platform last took (preorder_limit_counters).
 */

export const COUNTER_NAMESPACE = "$app:preorder";
export const REMAINING_KEY = "remaining";
export const CUSTOMER_UNITS_KEY = "units";

/** The owner id of the shop's counter in preorder_limit_counters (a customer's is its gid). */
const SHOP_OWNER = "shop";

export type CounterOutcome = "written" | "unchanged" | "not_connected" | "no_customer";

/** `{ offer id: units left }` of the shop's active offers with a total.max, in offer id order. */
export async function offersRemaining(db: Db, shopId: string): Promise<Record<string, number>> {
  const { rows } = await db.query<{ id: string; remaining: number }>(
    `select id, preorder_offer_remaining(shop_id, id) as remaining from preorder_offers
     where shop_id = $1 and status = 'active' and deleted_at is null and jsonb_typeof(settings #> '{limits,total,max}') = 'number'
     order by id`,
    [shopId],
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.remaining]));
}

/**
 * `{ offer id: units }` of the customer's live orders (theirs, or placed with one of their
 * orders' e-mail addresses, as the rule at ingest counts) of offers with a per_customer.max.
 */
export async function customerUnits(db: Db, shopId: string, customerId: string): Promise<Record<string, number>> {
  const { rows } = await db.query<{ offer_id: string; units: number }>(
    `select u.offer_id, u.units
     from preorder_customer_offer_units($1, $2,
       array(select distinct email from preorder_orders where shop_id = $1 and customer_id = $2 and email is not null)) u
     join preorder_offers po on po.id = u.offer_id
     where po.deleted_at is null and jsonb_typeof(po.settings #> '{limits,per_customer,max}') = 'number' and u.units > 0
     order by u.offer_id`,
    [shopId, customerId],
  );
  return Object.fromEntries(rows.map((r) => [r.offer_id, r.units]));
}

interface WriteDeps {
  pool: pg.Pool;
  platform: PlatformRuntime;
}

async function connected(pool: pg.Pool, shopId: string): Promise<boolean> {
  const { rows } = await pool.query<{ connected: boolean }>(
    "select platform_graphql_url is not null and platform_access_token is not null as connected from shops where id = $1",
    [shopId],
  );
  return rows[0]?.connected === true;
}

async function recordedDigest(pool: pg.Pool, shopId: string, ownerId: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ digest: string }>("select digest from preorder_limit_counters where shop_id = $1 and owner_id = $2", [shopId, ownerId]);
  return rows[0]?.digest;
}

async function record(pool: pg.Pool, shopId: string, ownerId: string, digest: string): Promise<void> {
  await pool.query(
    `insert into preorder_limit_counters (shop_id, owner_id, digest) values ($1, $2, $3)
     on conflict (shop_id, owner_id) do update set digest = excluded.digest, written_at = now()`,
    [shopId, ownerId, digest],
  );
}

const digestOf = (value: string): string => createHash("sha256").update(value).digest("hex");

/** Writes the shop's `remaining` counter as the orders and offers are now, if it changed. */
export async function writeOffersRemaining(deps: WriteDeps, shopId: string, signal?: AbortSignal): Promise<CounterOutcome> {
  const value = JSON.stringify(await offersRemaining(deps.pool, shopId));
  const digest = digestOf(value);
  const recorded = await recordedDigest(deps.pool, shopId, SHOP_OWNER);
  // Nothing written yet and nothing to say: a shop without total limits gets no metafield.
  if (recorded === digest || (recorded === undefined && value === "{}")) return "unchanged";
  if (!(await connected(deps.pool, shopId))) return "not_connected";
  const client = await deps.platform.clientFor(deps.pool, shopId);
  const options = signal ? { signal } : {};
  // The shop's id on the platform is the owner id; read, not stored, as it costs one point.
  const shop = await getShopMetafield(client, COUNTER_NAMESPACE, REMAINING_KEY, options);
  await setMetafields(client, [{ ownerId: shop.shopId, namespace: COUNTER_NAMESPACE, key: REMAINING_KEY, type: "json", value }], options);
  await record(deps.pool, shopId, SHOP_OWNER, digest);
  return "written";
}

/** Writes the customer's `units` counter as their orders are now, if it changed. */
export async function writeCustomerUnits(deps: WriteDeps, shopId: string, customerId: string, signal?: AbortSignal): Promise<CounterOutcome> {
  const value = JSON.stringify(await customerUnits(deps.pool, shopId, customerId));
  const digest = digestOf(value);
  const recorded = await recordedDigest(deps.pool, shopId, customerId);
  if (recorded === digest || (recorded === undefined && value === "{}")) return "unchanged";
  if (!(await connected(deps.pool, shopId))) return "not_connected";
  const client = await deps.platform.clientFor(deps.pool, shopId);
  try {
    await setMetafields(client, [{ ownerId: customerId, namespace: COUNTER_NAMESPACE, key: CUSTOMER_UNITS_KEY, type: "json", value }], signal ? { signal } : {});
  } catch (error) {
    // A customer the platform no longer has (deleted, or merged into another): no retry can write
    // it, and the checkout cannot sign them in.
    if (error instanceof PlatformError && error.userErrors?.some((e) => e.field?.includes("ownerId"))) {
      await deps.pool.query("delete from preorder_limit_counters where shop_id = $1 and owner_id = $2", [shopId, customerId]);
      throw new PermanentJobFailure(`customer ${customerId} is not on the platform: ${error.message}`);
    }
    throw error;
  }
  await record(deps.pool, shopId, customerId, digest);
  return "written";
}

/** The customers with live orders of the offer: whose counters a new per_customer.max needs. */
export async function customersOfOffer(db: Db, shopId: string, offerId: string): Promise<string[]> {
  const { rows } = await db.query<{ customer_id: string }>(
    `select distinct o.customer_id from preorder_orders o join preorder_order_lines l on l.order_id = o.id
     where o.shop_id = $1 and l.offer_id = $2 and l.selling_plan_id is not null and o.customer_id is not null
       and o.status not in ('cancelled', 'refunded')
     order by 1`,
    [shopId, offerId],
  );
  return rows.map((r) => r.customer_id);
}
