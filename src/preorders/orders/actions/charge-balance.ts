import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { withTransaction } from "../../../core/db.ts";
import type { JobContext } from "../../../core/job-task.ts";
import { jobHandleOutput } from "../../../core/outputs.ts";
import { type Order, getOrder } from "../../../platform/operations/orders.ts";
import type { PlatformRuntime } from "../../../platform/runtime.ts";
import { applyPreorderOrder } from "../ingest.ts";
import { chargeBalanceTask, requestBalanceCharge } from "../charge.ts";
import { loadOrder } from "../model.ts";

export { chargeBalanceTask };

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

const legacy = (gid: string) => gid.slice(gid.lastIndexOf("/") + 1);

/** The Admin API's order in the shape of the order webhooks, so one path applies both. */
export function orderAsWebhookPayload(order: Order): Record<string, unknown> {
  const fulfillment = order.displayFulfillmentStatus.toLowerCase();
  return {
    id: legacy(order.id),
    admin_graphql_api_id: order.id,
    name: order.name,
    email: order.email,
    created_at: order.createdAt,
    updated_at: order.updatedAt,
    cancelled_at: order.cancelledAt,
    financial_status: order.displayFinancialStatus.toLowerCase(),
    fulfillment_status: fulfillment === "unfulfilled" ? null : fulfillment,
    currency: order.currencyCode,
    total_price: order.totalPrice,
    total_outstanding: order.totalOutstanding,
    tags: order.tags,
    customer: order.customer ? { id: order.customer.id, email: order.customer.email } : null,
    line_items: order.lineItems.map((line) => ({
      id: line.id,
      variant_id: line.variant?.id ?? null,
      product_id: null,
      quantity: line.quantity,
      price: line.originalUnitPrice,
      selling_plan_allocation: line.sellingPlanId ? { selling_plan_id: line.sellingPlanId } : null,
    })),
  };
}

const jobPayload = z.object({ order_id: z.uuid() });

/** The charge_balance job: reads the order from the platform and applies it; answers where the balance stands. */
export async function runChargeBalance(ctx: JobContext, platform: PlatformRuntime): Promise<Record<string, unknown>> {
  const { order_id: orderId } = jobPayload.parse(ctx.job.payload);
  const shopId = ctx.job.shop_id;
  if (!shopId) throw new Error("charge_balance job without a shop");
  const { order: local } = await loadOrder(ctx.pool, shopId, orderId);
  const client = await platform.clientFor(ctx.pool, shopId);
  const remote = await getOrder(client, local.platform_order_id, ctx.signal ? { signal: ctx.signal } : undefined);
  if (!remote) return { order_id: orderId, outcome: "refused", reason: "the platform has no such order" };
  await withTransaction(ctx.pool, (db) => applyPreorderOrder(db, shopId, orderAsWebhookPayload(remote)));
  const { order } = await loadOrder(ctx.pool, shopId, orderId);
  return Number(order.total_outstanding) > 0
    ? { order_id: orderId, outcome: "requested", status: order.status, total_outstanding: order.total_outstanding, reason: "awaiting the platform's payment (orders/paid)" }
    : { order_id: orderId, outcome: "collected", status: order.status, total_outstanding: order.total_outstanding };
}
