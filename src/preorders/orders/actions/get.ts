import { z } from "zod";
import { orderOutput } from "./outputs.ts";
import { defineAction } from "../../../core/action.ts";
import { loadOrder, presentOrder } from "../model.ts";

export const getOrder = defineAction({
  name: "preorders.orders.get",
  method: "GET",
  path: "/preorders/orders/{id}",
  description:
    "One preorder order: its derived status, amounts (total, outstanding, deposit paid, balance), tags, offers, line items (preorder ones carry their selling plan and offer), and when it was released, cancelled or had its balance collection requested.",
  aliases: ["show a preorder order", "read one preorder order"],
  notes: ["404 for an unknown id or another shop's order."],
  output: orderOutput,
  kind: "read",
  params: z.object({ id: z.string() }),
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    const { order, lines } = await loadOrder(ctx.db, ctx.shopId, params.id);
    return presentOrder(order, lines);
  },
});
