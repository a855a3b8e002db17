import { z } from "zod";
import { orderOutput } from "./outputs.ts";
import { defineAction } from "../../../core/action.ts";
import { markCancelled } from "../state-changes.ts";
import { conflict } from "../../../core/errors.ts";
import { cancelDecision, loadOrder, presentOrder } from "../model.ts";

export const cancelOrder = defineAction({
  name: "preorders.orders.cancel",
  method: "POST",
  path: "/preorders/orders/{id}/cancel",
  description:
    "Cancels a preorder order in the app: it stops counting toward preorder counts and limits and can no longer be released or charged (status cancelled). 409 when the order is already fulfilled. Idempotent on a cancelled order. The platform order itself is not cancelled (the platform API used has no order cancellation); cancel it on the platform too.",
  aliases: ["cancel a preorder order", "stop counting a preorder order"],
  notes: ["The platform order is not cancelled: cancel it on the platform too."],
  output: orderOutput,
  kind: "write",
  params: z.object({ id: z.string() }),
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    const { order, lines } = await loadOrder(ctx.db, ctx.shopId, params.id, true);
    const decision = cancelDecision(order);
    if (decision.outcome === "refused") throw conflict(decision.reason);
    if (decision.outcome === "skipped") return presentOrder(order, lines);
    await markCancelled(ctx.db, ctx.shopId, [order.id]);
    const reloaded = await loadOrder(ctx.db, ctx.shopId, order.id);
    return presentOrder(reloaded.order, reloaded.lines);
  },
});
