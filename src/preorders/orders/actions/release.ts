import { z } from "zod";
import { orderOutput } from "./outputs.ts";
import { defineAction } from "../../../core/action.ts";
import { markReleased } from "../state-changes.ts";
import { conflict } from "../../../core/errors.ts";
import { loadOrder, presentOrder, releaseDecision } from "../model.ts";

export const releaseOrder = defineAction({
  name: "preorders.orders.release",
  method: "POST",
  path: "/preorders/orders/{id}/release",
  description:
    "Releases a preorder order for fulfilment (records released_at; the status becomes released). 409 when the order is cancelled or refunded, and while a balance is unpaid unless the body carries force: true. Idempotent: an order already released (or fulfilled) is answered as it is.",
  aliases: ["release a preorder order for fulfillment", "mark a preorder order ready to ship"],
  notes: ["The platform's Admin subset used has no fulfillment-hold release: the release is recorded in the app (released_at)."],
  output: orderOutput,
  kind: "write",
  params: z.object({ id: z.string() }),
  input: z.strictObject({ force: z.boolean().default(false) }),
  async handler(ctx, { params, input }) {
    const { order, lines } = await loadOrder(ctx.db, ctx.shopId, params.id, true);
    const decision = releaseDecision(order, input.force);
    if (decision.outcome === "refused") throw conflict(decision.reason);
    if (decision.outcome === "skipped") return presentOrder(order, lines);
    await markReleased(ctx.db, ctx.shopId, [order.id]);
    const reloaded = await loadOrder(ctx.db, ctx.shopId, order.id);
    return presentOrder(reloaded.order, reloaded.lines);
  },
});
