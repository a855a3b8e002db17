import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { jobHandleOutput } from "../../../core/outputs.ts";
import { requestBalanceCharge } from "../charge.ts";

export const chargeBalance = defineAction({
  name: "preorders.orders.charge_balance",
  method: "POST",
  path: "/preorders/orders/{id}/charge_balance",
  description:
    "Requests collection of the order's remaining balance: records balance_collection_requested_at and answers a job handle. The job reads the order back from the platform and applies what it finds; the platform API used has no payment mutation, so the balance counts as collected (status balance_collected) when the platform reports the order paid (its orders/paid webhook, or the job's read). 409 when the order is cancelled, refunded or has nothing outstanding.",
  aliases: ["charge the remaining balance of a preorder", "collect the balance due on a preorder order"],
  notes: ["The balance counts as collected only when the platform reports the order paid."],
  output: jobHandleOutput,
  kind: "write",
  async: true,
  params: z.object({ id: z.string() }),
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    return requestBalanceCharge(ctx.db, ctx.shopId, params.id);
  },
});


