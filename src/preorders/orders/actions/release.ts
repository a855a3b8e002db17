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
    "Releases a preorder order for fulfilment (records released_at; the status becomes released) and, when its offers hold fulfillment (shipping.fulfillment.hold), releases those platform fulfillment holds through a job. 409 when the order is cancelled or refunded, and while a balance is unpaid unless the body carries force: true. Idempotent: an order already released (or fulfilled) is answered as it is.",
  aliases: ["release a preorder order for fulfillment", "mark a preorder order ready to ship"],
  notes: [
    "The platform fulfillment holds the app placed (fulfillment_holds) are released by a job (fulfillmentOrderReleaseHold), retried on failure: fulfillment_hold_error shows the last failure; each hold's released_at is set once it is released. Holds placed by the merchant or other apps stay.",
  ],
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
