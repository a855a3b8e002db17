import { z } from "zod";
import type { Db } from "../../core/db.ts";
import { platformGid } from "../../core/params.ts";
import { queueLimitCountersForOrders } from "../limits/enqueue.ts";
import { refreshVariantCounts } from "./counts.ts";
import { onOrderApplied } from "./lifecycle.ts";
import type { OrderStatus } from "./model.ts";
import { SPLIT_OF_ATTRIBUTE } from "./split-record.ts";
import { PREORDER_OFFER_PROPERTY } from "../../storefront/line-properties.ts";

/**
 * Builds the preorder order model from the platform's order webhooks (orders/create, paid,
 * cancelled, fulfilled). Called once from the webhook processor (src/webhooks/process.ts), in the
 * same transaction that stores the raw order.
 *
 * Which orders: those with at least one line item on a selling plan (`selling_plan_allocation`),
 * which is how a preorder offer reaches checkout. Once tracked, an order keeps being updated.
 * Where it was placed is kept (`source_name`, and the point of sale's `location_id` as
 * `retail_location_id`): an order of the point of sale (`pos`) is judged against the offers'
 * `integrations.pos.enabled` (rule-breaks.ts, decision 0213).
 */

const id = z.union([z.number(), z.string()]).transform(String);
const money = z.union([z.string(), z.number()]).transform((v) => Number(v).toFixed(2));

const lineSchema = z.object({
  id,
  variant_id: id.nullish(),
  product_id: id.nullish(),
  quantity: z.number().int(),
  price: money,
  selling_plan_allocation: z.object({ selling_plan_id: id }).nullish(),
  properties: z.array(z.object({ name: z.string(), value: z.unknown() })).nullish(),
});

const orderSchema = z.object({
  id,
  admin_graphql_api_id: z.string().optional(),
  name: z.string().nullish(),
  email: z.string().nullish(),
  phone: z.string().nullish(),
  customer_locale: z.string().nullish(),
  created_at: z.string(),
  updated_at: z.string(),
  cancelled_at: z.string().nullish(),
  financial_status: z.string().nullish(),
  fulfillment_status: z.string().nullish(),
  currency: z.string(),
  total_price: money,
  total_outstanding: money.nullish(),
  tags: z.union([z.string(), z.array(z.string())]).nullish(),
  customer: z.object({ id: id.nullish(), email: z.string().nullish(), phone: z.string().nullish() }).nullish(),
  shipping_address: z.object({ country_code: z.string().nullish() }).nullish(),
  billing_address: z.object({ country_code: z.string().nullish() }).nullish(),
  // Where the order was placed: `pos` for the point of sale, with its location (decision 0213).
  source_name: z.string().nullish(),
  location_id: id.nullish(),
  line_items: z.array(lineSchema).default([]),
});

/** Whether any line item of an (unparsed) payload is on a selling plan, or names a preorder offer in its properties. */
function hasPreorderLine(payload: unknown): boolean {
  const lines = (payload as { line_items?: unknown } | null)?.line_items;
  if (!Array.isArray(lines)) return false;
  return lines.some((line) => {
    const { selling_plan_allocation: allocation, properties } = (line ?? {}) as { selling_plan_allocation?: { selling_plan_id?: unknown } | null; properties?: unknown };
    if (allocation?.selling_plan_id !== undefined && allocation.selling_plan_id !== null) return true;
    return Array.isArray(properties) && properties.some((p) => (p as { name?: unknown } | null)?.name === PREORDER_OFFER_PROPERTY);
  });
}

/** The offer a line names in its properties (PREORDER_OFFER_PROPERTY), if it is a uuid. */
function namedOffer(line: z.output<typeof lineSchema>): string | undefined {
  const value = line.properties?.find((p) => p.name === PREORDER_OFFER_PROPERTY)?.value;
  return typeof value === "string" && UUID.test(value) ? value.toLowerCase() : undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The mark a line sold without a platform selling plan carries in selling_plan_id: which offer it is a preorder line of. */
const offerMark = (offerId: string) => `offer:${offerId}`;

/**
 * The lines without a selling plan that name an offer the shop sells off the platform selling
 * plan, holding the line's variant: their offer id. Any other named offer is ignored (a shopper
 * can write any property).
 */
async function offersOffPlan(db: Db, shopId: string, lines: readonly z.output<typeof lineSchema>[]): Promise<Map<string, string>> {
  const named = lines.flatMap((line) => {
    const offer = line.selling_plan_allocation ? undefined : namedOffer(line);
    return offer && line.variant_id ? [{ line: line.id, offer, variant: platformGid("ProductVariant", line.variant_id) }] : [];
  });
  if (named.length === 0) return new Map();
  const { rows } = await db.query<{ offer_id: string; variant_id: string }>(
    `select v.offer_id, v.variant_id from preorder_offer_variants v join preorder_offers po on po.id = v.offer_id
     where v.shop_id = $1 and po.shop_id = $1 and po.status = 'active' and po.deleted_at is null and po.platform_selling_plan_id is null
       and (v.offer_id, v.variant_id) in (select * from unnest($2::uuid[], $3::text[]))`,
    [shopId, named.map((n) => n.offer), named.map((n) => n.variant)],
  );
  const valid = new Set(rows.map((r) => `${r.offer_id} ${r.variant_id}`));
  return new Map(named.filter((n) => valid.has(`${n.offer} ${n.variant}`)).map((n) => [n.line, n.offer]));
}

/**
 * Whether the payload is an order the preorder split made of this shop's order (decision 0204).
 * The note attribute alone proves nothing: a shopper can set cart attributes, and an order
 * skipped here gets no record, no limits and no balance collection. So the attribute must name an
 * order of this shop split into orders, and the payload must carry the PO number the split gave
 * the new order (a shopper's checkout cannot set one).
 */
async function isSplitOff(db: Db, shopId: string, payload: unknown): Promise<boolean> {
  const p = payload as { note_attributes?: unknown; po_number?: unknown } | null;
  const attributes = Array.isArray(p?.note_attributes) ? (p.note_attributes as unknown[]) : [];
  const original = attributes.map((a) => a as { name?: unknown; value?: unknown } | null).find((a) => a?.name === SPLIT_OF_ATTRIBUTE)?.value;
  if (typeof original !== "string" || typeof p?.po_number !== "string") return false;
  const { rowCount } = await db.query(
    `select 1 from preorder_orders where shop_id = $1 and platform_order_id = $2 and order_split->>'type' = 'orders'
       and exists (select 1 from jsonb_array_elements(order_split->'orders') g where g->>'name' = $3)`,
    [shopId, original, p.po_number],
  );
  return (rowCount ?? 0) > 0;
}

function splitTags(tags: string | string[] | null | undefined): string[] {
  if (!tags) return [];
  const list = Array.isArray(tags) ? tags : tags.split(",");
  return [...new Set(list.map((t) => t.trim()).filter((t) => t.length > 0))];
}

/**
 * Applies one order webhook payload to preorder_orders and its lines. An older description than
 * the one applied never undoes a newer one (platform updated_at), except that the balance left
 * after the deposit is the largest outstanding amount ever seen, whatever the order of arrival.
 * The stored preorder counts of the order's variants are recomputed in the same transaction.
 */
export async function applyPreorderOrder(db: Db, shopId: string, payload: unknown): Promise<void> {
  const platformOrderId = (() => {
    const p = payload as { admin_graphql_api_id?: unknown; id?: unknown } | null;
    if (typeof p?.admin_graphql_api_id === "string") return p.admin_graphql_api_id;
    return typeof p?.id === "number" || typeof p?.id === "string" ? platformGid("Order", p.id) : undefined;
  })();
  if (platformOrderId === undefined) return;
  // An order the split made of a preorder order's items (decision 0204): those items stay on the
  // original's record, which names this order; a record of its own would count them twice.
  if (await isSplitOff(db, shopId, payload)) return;
  if (!hasPreorderLine(payload)) {
    const { rowCount } = await db.query("select 1 from preorder_orders where shop_id = $1 and platform_order_id = $2", [shopId, platformOrderId]);
    if ((rowCount ?? 0) === 0) return; // not a preorder order
  }
  const order = orderSchema.parse(payload);
  const offPlan = await offersOffPlan(db, shopId, order.line_items);
  if (offPlan.size === 0 && !order.line_items.some((l) => l.selling_plan_allocation)) {
    // Only lines naming offers that do not take them: not a preorder order, unless already one.
    const { rowCount } = await db.query("select 1 from preorder_orders where shop_id = $1 and platform_order_id = $2", [shopId, platformOrderId]);
    if ((rowCount ?? 0) === 0) return;
  }
  const outstanding = order.total_outstanding ?? "0.00";
  const { rows: previous } = await db.query<{ status: OrderStatus }>(
    "select status from preorder_orders where shop_id = $1 and platform_order_id = $2",
    [shopId, platformOrderId],
  );
  const statusBefore = previous[0]?.status ?? null;
  // Before this description is applied (its status included): what the counters counted of it.
  const unitsBefore = await liveOfferUnits(db, shopId, platformOrderId);
  // The tags this service applied stay in `tags` even when a description older than its push arrives.
  const { rows } = await db.query<{ id: string }>(
    `insert into preorder_orders (shop_id, platform_order_id, name, email, customer_id, currency, total_price, total_outstanding,
       balance_amount, financial_status, fulfillment_status, tags, platform_cancelled_at, platform_created_at, platform_updated_at,
       phone, locale, market_id, source_name, retail_location_id)
     values ($1, $2, $3, lower($4), $5, $6, $7, $8, $8, $9, $10, $11, $12, $13, $14, $15, $16,
       -- The order's market: the platform assigns one by the buyer's country (the shipping
       -- address's, else the billing address's); the payload names none (decision 0205).
       (select m.id from markets m where m.shop_id = $1 and m.active and upper($17::text) = any(m.countries) order by m.is_primary desc, m.id limit 1),
       $18, $19)
     on conflict (shop_id, platform_order_id) do update set
       name = excluded.name, email = excluded.email, customer_id = excluded.customer_id, currency = excluded.currency,
       total_price = excluded.total_price, total_outstanding = excluded.total_outstanding,
       balance_amount = greatest(preorder_orders.balance_amount, excluded.balance_amount),
       financial_status = excluded.financial_status, fulfillment_status = excluded.fulfillment_status,
       tags = excluded.tags || array(select t from unnest(preorder_orders.app_tags) t where t <> all(excluded.tags)),
       platform_cancelled_at = excluded.platform_cancelled_at, platform_updated_at = excluded.platform_updated_at,
       phone = coalesce(excluded.phone, preorder_orders.phone), locale = coalesce(excluded.locale, preorder_orders.locale),
       market_id = coalesce(preorder_orders.market_id, excluded.market_id),
       -- Where an order was placed does not change; a later payload without it keeps what was known.
       source_name = coalesce(preorder_orders.source_name, excluded.source_name),
       retail_location_id = coalesce(preorder_orders.retail_location_id, excluded.retail_location_id), updated_at = now()
     where preorder_orders.platform_updated_at <= excluded.platform_updated_at
     returning id`,
    [
      shopId,
      platformOrderId,
      order.name ?? null,
      order.email ?? order.customer?.email ?? null,
      order.customer?.id ? platformGid("Customer", order.customer.id) : null,
      order.currency,
      order.total_price,
      outstanding,
      order.financial_status ?? null,
      order.fulfillment_status ?? null,
      splitTags(order.tags),
      order.cancelled_at ?? null,
      order.created_at,
      order.updated_at,
      order.phone ?? order.customer?.phone ?? null,
      localeOf(order.customer_locale),
      order.shipping_address?.country_code ?? order.billing_address?.country_code ?? null,
      order.source_name ?? null,
      order.location_id ? platformGid("Location", order.location_id) : null,
    ],
  );
  const applied = rows[0];
  if (!applied) {
    // An older description: only the balance it shows can still matter.
    await db.query(
      `update preorder_orders set balance_amount = $3, updated_at = now()
       where shop_id = $1 and platform_order_id = $2 and balance_amount < $3`,
      [shopId, platformOrderId, outstanding],
    );
    return;
  }

  const lines = order.line_items.map((line) => {
    const offer = offPlan.get(line.id);
    return {
      id: platformGid("LineItem", line.id),
      variant_id: line.variant_id ? platformGid("ProductVariant", line.variant_id) : null,
      product_id: line.product_id ? platformGid("Product", line.product_id) : null,
      quantity: line.quantity,
      price: line.price,
      selling_plan_id: line.selling_plan_allocation ? platformGid("SellingPlan", line.selling_plan_allocation.selling_plan_id) : offer ? offerMark(offer) : null,
      offer_id: line.selling_plan_allocation ? null : (offer ?? null),
    };
  });
  const { rows: before } = await db.query<{ variant_id: string }>(
    "select variant_id from preorder_order_lines where order_id = $1 and selling_plan_id is not null and variant_id is not null",
    [applied.id],
  );
  await db.query("delete from preorder_order_lines where order_id = $1 and not (platform_line_id = any($2::text[]))", [applied.id, lines.map((l) => l.id)]);
  await db.query(
    `insert into preorder_order_lines (order_id, shop_id, platform_line_id, variant_id, product_id, quantity, price, selling_plan_id, offer_id, payment_option)
     select $1, $2, r.id, r.variant_id, r.product_id, r.quantity, r.price, r.selling_plan_id, coalesce(r.offer_id, link.offer_id), link.payment_option
     from jsonb_to_recordset($3::jsonb) as r(id text, variant_id text, product_id text, quantity integer, price numeric, selling_plan_id text, offer_id uuid)
     -- The offer of the line's plan: any of its plans, with the payment option the plan charges by
     -- (decision 0212), else (an offer no sync has recorded plans for) its platform_selling_plan_id.
     left join lateral (
       select offer_id, payment_option from (
         select sp.offer_id, sp.payment_option, 0 as rank, null::timestamptz as deleted_at, null::timestamptz as created_at
         from preorder_offer_selling_plans sp where sp.shop_id = $2 and sp.platform_selling_plan_id = r.selling_plan_id
         union all
         select po.id, null, 1, po.deleted_at, po.created_at
         from preorder_offers po where po.shop_id = $2 and po.platform_selling_plan_id = r.selling_plan_id
       ) found
       order by rank, deleted_at nulls first, created_at desc limit 1
     ) link on true
     on conflict (order_id, platform_line_id) do update set variant_id = coalesce(excluded.variant_id, preorder_order_lines.variant_id),
       product_id = coalesce(excluded.product_id, preorder_order_lines.product_id),
       quantity = excluded.quantity, price = excluded.price, selling_plan_id = excluded.selling_plan_id,
       offer_id = coalesce(excluded.offer_id, preorder_order_lines.offer_id),
       payment_option = coalesce(excluded.payment_option, preorder_order_lines.payment_option)`,
    [applied.id, shopId, JSON.stringify(lines)],
  );
  const variants = new Set(before.map((r) => r.variant_id));
  for (const line of lines) if (line.selling_plan_id && line.variant_id) variants.add(line.variant_id);
  await refreshVariantCounts(db, shopId, [...variants]);
  // A new order, an edit of its lines, a cancellation or a refund moves the counters the
  // checkout's validation reads (decision 0211); a payment or a fulfillment does not.
  const unitsAfter = await liveOfferUnits(db, shopId, platformOrderId);
  if (JSON.stringify(unitsAfter) !== JSON.stringify(unitsBefore)) {
    await queueLimitCountersForOrders(db, shopId, [applied.id], Object.keys(unitsBefore));
  }
  await onOrderApplied(db, shopId, applied.id, statusBefore);
}

/** The order's live units per offer (none once it is cancelled or refunded), in offer id order. */
async function liveOfferUnits(db: Db, shopId: string, platformOrderId: string): Promise<Record<string, number>> {
  const { rows } = await db.query<{ offer_id: string; units: number }>(
    `select l.offer_id::text, sum(l.quantity)::int as units
     from preorder_orders o join preorder_order_lines l on l.order_id = o.id
     where o.shop_id = $1 and o.platform_order_id = $2 and l.offer_id is not null and l.selling_plan_id is not null
       and o.status not in ('cancelled', 'refunded')
     group by 1 order by 1`,
    [shopId, platformOrderId],
  );
  return Object.fromEntries(rows.map((r) => [r.offer_id, r.units]));
}

/** The customer's locale as templates are keyed (`fr`, `pt-BR`), or null when the platform sent none usable. */
function localeOf(value: string | null | undefined): string | null {
  if (!value) return null;
  const [language, region] = value.replace("_", "-").split("-");
  if (!language || !/^[a-z]{2,3}$/i.test(language)) return null;
  return region && /^[a-z0-9]{2,8}$/i.test(region) ? `${language.toLowerCase()}-${region.toUpperCase()}` : language.toLowerCase();
}

