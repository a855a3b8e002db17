import type { Db } from "../../core/db.ts";
import { notFound } from "../../core/errors.ts";
import { isUuid } from "../../core/params.ts";
import type { FulfillmentHoldRecord } from "./fulfillment-holds.ts";
import type { OrderSplitRecord } from "./split-record.ts";
import type { RuleBreak } from "./rule-breaks.ts";

/** The statuses the database derives (sql/030, the `status` generated column), in lifecycle order. */
export const ORDER_STATUSES = ["placed", "awaiting_balance", "balance_collected", "released", "fulfilled", "cancelled", "refunded"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

const ORDER_RESOURCE = "Preorder order";

/** Bulk actions take at most this many order ids per request. */
export const BULK_ORDER_CAP = 1000;


export interface OrderRow {
  id: string;
  shop_id: string;
  platform_order_id: string;
  name: string | null;
  email: string | null;
  customer_id: string | null;
  currency: string;
  total_price: string;
  total_outstanding: string;
  balance_amount: string;
  financial_status: string | null;
  fulfillment_status: string | null;
  tags: string[];
  market_id: string | null;
  /** Where the platform says the order was placed (`web`, `pos`, ...) and the point of sale's location (sql/118, decision 0213). */
  source_name: string | null;
  retail_location_id: string | null;
  platform_cancelled_at: Date | null;
  platform_created_at: Date;
  platform_updated_at: Date;
  released_at: Date | null;
  cancelled_at: Date | null;
  balance_requested_at: Date | null;
  /** Refunds recorded by the app (sql/061): the amount so far, and when everything paid was refunded. */
  refunded_amount: string;
  refunded_at: Date | null;
  /** What ingestion learned (sql/070): the app's tags, when the balance is due, how it is auto-collected and what the last run decided. */
  app_tags: string[];
  balance_due_at: Date | null;
  auto_collect: "due_date" | "on_fulfillment" | null;
  auto_collect_result: string | null;
  auto_collect_ran_at: Date | null;
  /** The offers' rules the order broke when it arrived (sql/106, rule-breaks.ts). */
  rule_breaks: RuleBreak[];
  /** The platform fulfillment holds the app placed for its offers' shipping.fulfillment.hold, and the hold job's last failure (sql/108). */
  fulfillment_holds: FulfillmentHoldRecord[];
  fulfillment_hold_error: string | null;
  /** The split of the preorder items for the offers' shipping.fulfillment.split, and the split job's last failure (sql/111). */
  order_split: OrderSplitRecord | null;
  order_split_error: string | null;
  created_at: Date;
  updated_at: Date;
  status: OrderStatus;
}

export interface LineRow {
  id: string;
  variant_id: string | null;
  product_id: string | null;
  quantity: number;
  price: string;
  selling_plan_id: string | null;
  offer_id: string | null;
  payment_option: string | null;
}

/** The order's lines as one JSON array, for selects that return orders with their lines. */
export const LINES_JSON = `coalesce((
  select json_agg(json_build_object('id', l.platform_line_id, 'variant_id', l.variant_id, 'product_id', l.product_id,
    'quantity', l.quantity, 'price', l.price::text, 'selling_plan_id', l.selling_plan_id, 'offer_id', l.offer_id,
    'payment_option', l.payment_option)
    order by l.platform_line_id)
  from preorder_order_lines l where l.order_id = o.id), '[]'::json)`;

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The public shape of a preorder order (GET /preorders/orders/{id}, list entries, action snapshots). */
export function presentOrder(order: OrderRow, lines: LineRow[]): Record<string, unknown> {
  const deposit = Number(order.balance_amount) > 0 ? (Number(order.total_price) - Number(order.balance_amount)).toFixed(2) : null;
  const offerIds = [...new Set(lines.map((l) => l.offer_id).filter((id): id is string => id !== null))];
  return {
    id: order.id,
    platform_order_id: order.platform_order_id,
    name: order.name,
    status: order.status,
    email: order.email,
    customer_id: order.customer_id,
    currency: order.currency,
    total_price: order.total_price,
    total_outstanding: order.total_outstanding,
    deposit_paid: deposit,
    balance_amount: order.balance_amount,
    financial_status: order.financial_status,
    fulfillment_status: order.fulfillment_status,
    tags: order.tags,
    app_tags: order.app_tags,
    rule_breaks: order.rule_breaks,
    fulfillment_holds: order.fulfillment_holds,
    fulfillment_hold_error: order.fulfillment_hold_error,
    order_split: order.order_split,
    order_split_error: order.order_split_error,
    market_id: order.market_id,
    source_name: order.source_name,
    retail_location_id: order.retail_location_id,
    offer_ids: offerIds,
    line_items: lines.map((l) => ({ ...l, preorder: l.selling_plan_id !== null })),
    released_at: iso(order.released_at),
    cancelled_at: iso(order.cancelled_at ?? order.platform_cancelled_at),
    cancelled_by: order.platform_cancelled_at ? "platform" : order.cancelled_at ? "app" : null,
    balance_collection_requested_at: iso(order.balance_requested_at),
    balance_due_at: iso(order.balance_due_at),
    auto_collect: order.auto_collect,
    auto_collect_result: order.auto_collect_result,
    auto_collect_ran_at: iso(order.auto_collect_ran_at),
    refunded_amount: order.refunded_amount,
    refunded_at: iso(order.refunded_at),
    created_at: order.platform_created_at.toISOString(),
    updated_at: (order.updated_at > order.platform_updated_at ? order.updated_at : order.platform_updated_at).toISOString(),
  };
}

/** The order of this shop with its lines; 404 `Preorder order not found: <id>` otherwise (a malformed id included). */
export async function loadOrder(db: Db, shopId: string, id: string, lock = false): Promise<{ order: OrderRow; lines: LineRow[] }> {
  if (!isUuid(id)) throw notFound(ORDER_RESOURCE, id);
  const { rows } = await db.query<OrderRow>(`select * from preorder_orders where id = $1 and shop_id = $2 ${lock ? "for update" : ""}`, [id, shopId]);
  const order = rows[0];
  if (!order) throw notFound(ORDER_RESOURCE, id);
  return { order, lines: await loadLines(db, order.id) };
}

async function loadLines(db: Db, orderId: string): Promise<LineRow[]> {
  const { rows } = await db.query<LineRow>(
    `select platform_line_id as id, variant_id, product_id, quantity, price::text as price, selling_plan_id, offer_id, payment_option
     from preorder_order_lines where order_id = $1 order by platform_line_id`,
    [orderId],
  );
  return rows;
}

/** Orders of this shop among `ids`, locked for the caller's transaction when `lock`; ids that are not uuids are simply absent. */
export async function findOrders(db: Db, shopId: string, ids: readonly string[], lock: boolean): Promise<Map<string, OrderRow>> {
  const wanted = ids.filter(isUuid);
  if (wanted.length === 0) return new Map();
  const { rows } = await db.query<OrderRow>(
    `select * from preorder_orders where shop_id = $1 and id = any($2::uuid[]) order by id ${lock ? "for update" : ""}`,
    [shopId, wanted],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

export type Decision = { outcome: "apply" } | { outcome: "skipped"; reason: string } | { outcome: "refused"; reason: string };

const money = (amount: string, currency: string) => `${amount} ${currency}`;

/**
 * Whether `release` may run: refused on a cancelled or refunded order, and while a balance is
 * unpaid unless forced; an order already released (or fulfilled) is left as it is.
 */
export function releaseDecision(order: OrderRow, force: boolean): Decision {
  if (order.status === "cancelled") return { outcome: "refused", reason: `Preorder order ${order.id} is already cancelled` };
  if (order.status === "refunded") return { outcome: "refused", reason: `Preorder order ${order.id} is refunded` };
  if (order.released_at !== null) return { outcome: "skipped", reason: "already released" };
  if (order.status === "fulfilled") return { outcome: "skipped", reason: "already fulfilled" };
  if (Number(order.total_outstanding) > 0 && !force) {
    return {
      outcome: "refused",
      reason: `Preorder order ${order.id} has an unpaid balance of ${money(order.total_outstanding, order.currency)}; pass force: true to release it anyway`,
    };
  }
  return { outcome: "apply" };
}

/** Whether `cancel` may run: a cancelled order stays cancelled; a fulfilled one cannot be. */
export function cancelDecision(order: OrderRow): Decision {
  if (order.status === "cancelled") return { outcome: "skipped", reason: "already cancelled" };
  if (order.status === "fulfilled") return { outcome: "refused", reason: `Preorder order ${order.id} is already fulfilled` };
  return { outcome: "apply" };
}

/** Whether `charge_balance` may run: only on a live order with something outstanding. */
export function chargeDecision(order: OrderRow): Decision {
  if (order.status === "cancelled") return { outcome: "refused", reason: `Preorder order ${order.id} is already cancelled` };
  if (order.status === "refunded") return { outcome: "refused", reason: `Preorder order ${order.id} is refunded` };
  if (Number(order.total_outstanding) <= 0) return { outcome: "refused", reason: `Preorder order ${order.id} has no outstanding balance` };
  return { outcome: "apply" };
}
