import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { conflict } from "../../../core/errors.ts";
import { queueLimitCountersForOrders } from "../../limits/enqueue.ts";
import { refreshVariantCounts, variantsOfOrders } from "../counts.ts";
import { loadOrder, presentOrder } from "../model.ts";
import { orderOutput } from "./outputs.ts";

const AMOUNT = /^\d{1,12}(?:\.\d{1,2})?$/;
const AMOUNT_MESSAGE = "must be a positive amount with at most two decimals, e.g. 12.50";

/** An amount as a JSON string ("12.50") or number (12.5), in cents from here on. */
const amount = z
  .union([z.string(), z.number()], { error: AMOUNT_MESSAGE })
  .transform((value, ctx) => {
    const text = String(value).trim();
    if (!AMOUNT.test(text) || Number(text) <= 0) {
      ctx.addIssue({ code: "custom", message: AMOUNT_MESSAGE, input: value });
      return z.NEVER;
    }
    return Math.round(Number(text) * 100);
  })
  .meta({ examples: ["12.50"] });

const cents = (decimal: string): number => Math.round(Number(decimal) * 100);
const decimal = (value: number): string => (value / 100).toFixed(2);

export const refundOrder = defineAction({
  name: "preorders.orders.refund",
  method: "POST",
  path: "/preorders/orders/{id}/refund",
  description:
    "Records a refund of the order in the app: amount (optional; default everything paid that is not refunded yet) adds to refunded_amount; once everything paid is refunded, refunded_at is set and the status becomes refunded, and the order stops counting toward preorder counts, limits and report sums. Answers the order.",
  notes: [
    "Paid means total_price less total_outstanding; a partial refund leaves the status as it is.",
    "409 when nothing was paid (a cancelled unpaid order included), when the order is already refunded and an amount is given, or when the amount exceeds what is left to refund.",
    "A full refund of an order already refunded changes nothing and answers it as it is.",
    "The platform API used has no refund mutation: refund the payment on the platform too; its refunded financial status, when it arrives, agrees with this record.",
  ],
  aliases: ["refund a preorder order", "record a partial refund of a preorder"],
  kind: "write",
  params: z.object({ id: z.string() }),
  input: z.strictObject({ amount: amount.optional().describe("the amount to refund; default: everything paid and not yet refunded") }),
  output: orderOutput,
  async handler(ctx, { params, input }) {
    const { order, lines } = await loadOrder(ctx.db, ctx.shopId, params.id, true);
    const paid = cents(order.total_price) - cents(order.total_outstanding);
    const refundable = paid - cents(order.refunded_amount);
    if (order.status === "refunded") {
      if (input.amount === undefined) return presentOrder(order, lines);
      throw conflict(`Preorder order ${order.id} is already refunded`);
    }
    if (paid <= 0) {
      throw conflict(order.status === "cancelled" ? `Preorder order ${order.id} is cancelled and nothing was paid: there is nothing to refund` : `Preorder order ${order.id} has nothing paid to refund`);
    }
    const refund = input.amount ?? refundable;
    if (refund > refundable) throw conflict(`A refund of ${decimal(refund)} ${order.currency} exceeds the ${decimal(refundable)} ${order.currency} left to refund on preorder order ${order.id}`);
    await ctx.db.query(
      `update preorder_orders set refunded_amount = refunded_amount + $2::numeric,
         refunded_at = case when refunded_amount + $2::numeric >= $3::numeric then now() else refunded_at end, updated_at = now()
       where id = $1`,
      [order.id, decimal(refund), decimal(paid)],
    );
    await refreshVariantCounts(ctx.db, ctx.shopId, await variantsOfOrders(ctx.db, [order.id]));
    await queueLimitCountersForOrders(ctx.db, ctx.shopId, [order.id]);
    const reloaded = await loadOrder(ctx.db, ctx.shopId, order.id);
    return presentOrder(reloaded.order, reloaded.lines);
  },
});
