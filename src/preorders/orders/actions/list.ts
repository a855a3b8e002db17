import { z } from "zod";
import { pageOutput } from "../../../core/outputs.ts";
import { orderOutput } from "./outputs.ts";
import { defineAction } from "../../../core/action.ts";
import { Filters } from "../../../core/sql-filters.ts";
import { platformId } from "../../../core/params.ts";
import { type LineRow, LINES_JSON, ORDER_STATUSES, type OrderRow, presentOrder } from "../model.ts";
import { PERIOD_RULE, dateOrTimestamp, lowerBound, upperBound } from "../../../core/period.ts";
import { PAGING_RULE, pageAnswer, pageOrCursor, paging, pagingParams, cursorPart } from "../../../core/paging.ts";
import { offerId } from "../../params.ts";

export const listOrders = defineAction({
  name: "preorders.orders.list",
  method: "GET",
  path: "/preorders/orders",
  description: `Preorder orders (platform orders with at least one line item on a selling plan), newest first. Filters: status (placed, awaiting_balance, balance_collected, released, fulfilled, cancelled, refunded; derived from the order's facts), offer_id, variant_id (a number or gid), created_from and created_to (${PERIOD_RULE}), email (the customer's, any case). Answers { orders, page, per_page, total, next_cursor }. ${PAGING_RULE}.`,
  aliases: ["list preorder orders", "find preorder orders by status", "search preorder orders by customer email"],
  notes: ["created_from and created_to read the order's creation time on the platform."],
  output: pageOutput("orders", orderOutput),
  kind: "read",
  input: z
    .strictObject({
      status: z.enum(ORDER_STATUSES).optional(),
      offer_id: offerId.optional(),
      variant_id: platformId("ProductVariant").optional(),
      created_from: dateOrTimestamp.optional(),
      created_to: dateOrTimestamp.optional(),
      email: z.string().min(1).max(320).optional(),
      ...pagingParams(z.tuple([cursorPart.timestamp, cursorPart.uuid])),
    })
    .superRefine(pageOrCursor),
  async handler(ctx, { input }) {
    const where = new Filters([ctx.shopId])
      .add("o.shop_id = $1")
      .when(input.status, (p) => `o.status = ${p}`)
      .when(input.offer_id, (p) => `exists (select 1 from preorder_order_lines l where l.order_id = o.id and l.offer_id = ${p})`)
      .when(input.variant_id, (p) => `exists (select 1 from preorder_order_lines l where l.order_id = o.id and l.variant_id = ${p})`)
      .when(lowerBound(input.created_from), (p) => `o.platform_created_at >= ${p}`)
      .when(upperBound(input.created_to), (p) => `o.platform_created_at < ${p}`)
      .when(input.email, (p) => `o.email = lower(${p})`);
    const p = paging(input);
    const { rows: counted } = await ctx.db.query<{ n: number }>(`select count(*)::int as n from preorder_orders o where ${where.sql()}`, where.params);
    if (p.after) where.add(`(o.platform_created_at, o.id) < (${where.param(p.after[0])}::timestamptz, ${where.param(p.after[1])}::uuid)`);
    const { rows } = await ctx.db.query<OrderRow & { lines: LineRow[]; cursor_at: string }>(
      `select o.*, ${LINES_JSON} as lines, to_char(o.platform_created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
       from preorder_orders o where ${where.sql()}
       order by o.platform_created_at desc, o.id desc
       limit ${String(p.limit)} offset ${String(p.offset)}`,
      where.params,
    );
    return pageAnswer("orders", p, rows, counted[0]?.n ?? 0, (row) => [row.cursor_at, row.id], ({ lines, cursor_at: _cursor, ...order }) => presentOrder(order, lines));
  },
});
