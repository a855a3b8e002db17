import type { Db } from "../../core/db.ts";
import type { Paging } from "../../core/paging.ts";
import { Filters } from "../../core/sql-filters.ts";
import { LINE_OF_VARIANT, LINE_TOTAL, ORDER_LINE_ITEMS, ORDER_NOT_CANCELLED, ORDER_OF, money } from "./report-queries.ts";

/**
 * ORDERS ATTRIBUTED TO BACK-IN-STOCK ALERTS: the orders that converted signups (an order of the
 * signup's contact for its variant within the attribution window after its alert: see
 * src/back_in_stock/alerts/conversions.ts, which records converted_order_id and converted_at on
 * the signup). One item per order, with the signups it converted and, per variant of those
 * signups, the quantity and line totals of the stored platform order: the same revenue the
 * reports count (each order and variant once; a cancelled order counts nothing).
 */

interface AttributedOrderFilters {
  from?: Date | undefined;
  to?: Date | undefined;
  variant_id?: string | undefined;
  product_id?: string | undefined;
  /** One order (a gid). */
  order_id?: string | undefined;
}

interface OrderRow {
  order_id: string;
  ordered_at: Date;
  cursor_at: string;
  signups: { id: string; variant_id: string; channel: string; contact: string; notified_at: string | null }[];
  variants: { variant_id: string; quantity: number | string; line_total: number | string }[];
  order_stored: boolean;
  name: string | null;
  currency: string | null;
  cancelled: boolean;
}

interface AttributedOrder {
  id: string;
  name: string | null;
  ordered_at: string;
  currency: string | null;
  cancelled: boolean;
  order_stored: boolean;
  revenue: number;
  variants: { variant_id: string; quantity: number; revenue: number }[];
  signups: { id: string; variant_id: string; channel: string; recipient: string; notified_at: string | null }[];
}

function present(row: OrderRow): AttributedOrder {
  const counted = row.order_stored && !row.cancelled;
  const variants = row.variants.map((v) => ({ variant_id: v.variant_id, quantity: Number(v.quantity), revenue: counted ? money(v.line_total) : 0 }));
  return {
    id: row.order_id,
    name: row.name,
    ordered_at: row.ordered_at.toISOString(),
    currency: row.currency,
    cancelled: row.cancelled,
    order_stored: row.order_stored,
    revenue: money(variants.reduce((sum, v) => sum + v.revenue, 0)),
    variants,
    signups: row.signups.map((s) => ({
      id: s.id,
      variant_id: s.variant_id,
      channel: s.channel,
      recipient: s.contact,
      notified_at: s.notified_at === null ? null : new Date(s.notified_at).toISOString(),
    })),
  };
}

/**
 * A page of the shop's attributed orders, newest first (ordered_at, then id, descending), and
 * how many match. `paging.after` continues after [ordered_at, order id].
 */
export async function attributedOrders(
  db: Db,
  shopId: string,
  filters: AttributedOrderFilters,
  paging: Pick<Paging<readonly [string, string]>, "after" | "limit" | "offset">,
): Promise<{ rows: (AttributedOrder & { cursor: [string, string] })[]; total: number }> {
  const where = new Filters([shopId])
    .add("s.shop_id = $1 and s.converted_order_id is not null and s.converted_at is not null")
    .when(filters.order_id, (p) => `s.converted_order_id = ${p}`)
    .when(filters.from, (p) => `s.converted_at >= ${p}`)
    .when(filters.to, (p) => `s.converted_at < ${p}`);
  const having = new Filters(where.params)
    .when(filters.variant_id, (p) => `bool_or(s.variant_id = ${p})`)
    .when(filters.product_id, (p) => `bool_or(s.product_id = ${p})`);
  const attributed = `
    select s.converted_order_id as order_id, min(s.converted_at) as ordered_at,
           jsonb_agg(jsonb_build_object('id', s.id, 'variant_id', s.variant_id, 'channel', s.channel, 'contact', s.contact, 'notified_at', s.notified_at)
                     order by s.notified_at, s.id) as signups,
           array_agg(distinct s.variant_id) as variant_ids
    from bis_signups s
    where ${where.sql()}
    group by s.converted_order_id
    having ${having.sql()}`;
  const { rows: counted } = await db.query<{ n: number }>(`select count(*)::int as n from (${attributed}) a`, having.params);
  const page = new Filters(having.params);
  if (paging.after) page.add(`(a.ordered_at, a.order_id) < (${page.param(paging.after[0])}::timestamptz, ${page.param(paging.after[1])}::text)`);
  const { rows } = await db.query<OrderRow>(
    `with a as (${attributed})
     select a.order_id, a.ordered_at, a.signups,
            to_char(a.ordered_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at,
            o.id is not null as order_stored, o.payload->>'name' as name, o.payload->>'currency' as currency,
            o.id is not null and not (${ORDER_NOT_CANCELLED}) as cancelled,
            lines.variants
     from a
     left join platform_orders o on ${ORDER_OF("a")}
     cross join lateral (
       select jsonb_agg(jsonb_build_object('variant_id', per.variant_id, 'quantity', per.quantity, 'line_total', per.line_total) order by per.variant_id) as variants
       from (
         select v.variant_id, coalesce(sum((li->>'quantity')::numeric), 0) as quantity, coalesce(sum(${LINE_TOTAL}), 0) as line_total
         from unnest(a.variant_ids) v(variant_id)
         left join lateral ${ORDER_LINE_ITEMS} on ${LINE_OF_VARIANT("v.variant_id")}
         group by v.variant_id
       ) per
     ) lines
     where ${page.sql()}
     order by a.ordered_at desc, a.order_id desc
     limit ${page.param(paging.limit)} offset ${page.param(paging.offset)}`,
    page.params,
  );
  return { rows: rows.map((r) => ({ ...present(r), cursor: [r.cursor_at, r.order_id] })), total: counted[0]?.n ?? 0 };
}
