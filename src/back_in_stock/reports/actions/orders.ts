import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { notFound } from "../../../core/errors.ts";
import { pageOutput, timestampOutput } from "../../../core/outputs.ts";
import { PAGING_RULE, cursorPart, pageAnswer, pageOrCursor, paging, pagingParams } from "../../../core/paging.ts";
import { PERIOD_RULE, periodEnd, periodStart, withPeriodOrder } from "../../../core/period.ts";
import { platformId } from "../../../core/params.ts";
import { SIGNUP_CHANNELS, productIdSchema, variantIdSchema } from "../../signups/model.ts";
import { attributedOrders } from "../orders.ts";

const BIS_ORDER_RESOURCE = "Back-in-stock order";

const orderIdSchema = platformId("Order");

const attributedOrderOutput = z.strictObject({
  id: z.string().describe("gid of the platform order"),
  name: z.string().nullable().describe("the order's name on the platform (#1001), when the stored order has one"),
  ordered_at: timestampOutput.describe("when the order was placed (the signups' converted_at)"),
  currency: z.string().nullable(),
  cancelled: z.boolean().describe("the stored order is cancelled: its revenue counts 0"),
  order_stored: z.boolean().describe("the platform order is stored (from the orders webhooks); without it quantity and revenue read 0"),
  revenue: z.number().min(0).describe("sum of the variants' revenue: what the reports count as recovered revenue for this order"),
  variants: z
    .array(
      z.strictObject({
        variant_id: z.string(),
        quantity: z.number().min(0).describe("units of the variant in the order"),
        revenue: z.number().min(0).describe("price x quantity of the variant's lines"),
      }),
    )
    .describe("each variant the converted signups waited for, once"),
  signups: z
    .array(
      z.strictObject({
        id: z.string().describe("the signup the order converted"),
        variant_id: z.string(),
        channel: z.enum(SIGNUP_CHANNELS),
        recipient: z.string().describe("the signup's e-mail address or phone number"),
        notified_at: timestampOutput.nullable().describe("when its alert was claimed"),
      }),
    )
    .describe("the signups this order converted, first alerted first"),
});

const DESCRIPTION_FIELDS =
  "id (the platform order's gid), name, ordered_at, currency, cancelled, order_stored, revenue, variants ([{ variant_id, quantity, revenue }]: each variant the converted signups waited for) and signups ([{ id, variant_id, channel, recipient, notified_at }]: the signups it converted)";

const ATTRIBUTION_NOTES = [
  "An order is attributed when it converts a signup: an order of the signup's contact (e-mail, phone or platform customer) for its variant, placed within attribution.window_days (settings) after the signup's alert.",
  "Revenue is price x quantity of the attributed variants' lines only, each order and variant once, as in the conversions report; a cancelled order counts 0.",
];

export const listBackInStockOrders = defineAction({
  name: "back_in_stock.orders.list",
  method: "GET",
  path: "/back_in_stock/orders",
  aliases: ["list orders from back in stock alerts", "which orders did back in stock alerts bring", "show recovered back in stock sales"],
  description: `Orders attributed to back-in-stock alerts (they converted signups), newest first, as { orders, page, per_page, total, next_cursor }, each with ${DESCRIPTION_FIELDS}. Filters (optional, combined with and): from and to on ordered_at (${PERIOD_RULE}); variant_id and product_id (numeric id or gid): orders that converted a signup of that variant or product. ${PAGING_RULE}.`,
  notes: ATTRIBUTION_NOTES,
  kind: "read",
  input: withPeriodOrder(
    z
      .strictObject({
        from: periodStart.optional(),
        to: periodEnd.optional(),
        variant_id: variantIdSchema.optional(),
        product_id: productIdSchema.optional(),
        ...pagingParams(z.tuple([cursorPart.timestamp, cursorPart.text])),
      })
      .superRefine(pageOrCursor),
  ),
  output: pageOutput("orders", attributedOrderOutput),
  async handler(ctx, { input }) {
    const p = paging(input);
    const { rows, total } = await attributedOrders(ctx.db, ctx.shopId, input, p);
    return pageAnswer("orders", p, rows, total, (r) => r.cursor, ({ cursor: _cursor, ...order }) => order);
  },
});

export const getBackInStockOrder = defineAction({
  name: "back_in_stock.orders.get",
  method: "GET",
  path: "/back_in_stock/orders/{id}",
  aliases: ["show an order from a back in stock alert", "which alert led to this order"],
  description: `One order attributed to back-in-stock alerts, by the platform order's numeric id or gid: ${DESCRIPTION_FIELDS}. 404 when the order converted no signup of this shop (another shop's order, or one no alert led to).`,
  notes: ATTRIBUTION_NOTES,
  kind: "read",
  params: z.object({ id: z.string() }),
  input: z.strictObject({}),
  output: attributedOrderOutput,
  async handler(ctx, { params }) {
    const id = orderIdSchema.safeParse(params.id);
    const { rows } = id.success ? await attributedOrders(ctx.db, ctx.shopId, { order_id: id.data }, { after: undefined, limit: 1, offset: 0 }) : { rows: [] };
    const row = rows[0];
    if (!row) throw notFound(BIS_ORDER_RESOURCE, params.id);
    const { cursor: _cursor, ...order } = row;
    return order;
  },
});
