import { z } from "zod";
import { withTransaction } from "../../../core/db.ts";
import { type JobRunContext, defineJob } from "../../../core/job-task.ts";
import { declareJob } from "../../../core/jobs.ts";
import { type Order, getOrder } from "../../../platform/operations/orders.ts";
import { applyPreorderOrder } from "../ingest.ts";
import { loadOrder } from "../model.ts";

/** Collects an order's balance (charge_balance and auto-collect queue it: src/preorders/orders/charge.ts). */
export const chargeBalanceJob = declareJob({ name: "preorders_order_charge_balance", payload: z.object({ order_id: z.uuid() }) });

const legacy = (gid: string) => gid.slice(gid.lastIndexOf("/") + 1);

/** The Admin API's order in the shape of the order webhooks, so one path applies both. */
function orderAsWebhookPayload(order: Order): Record<string, unknown> {
  const fulfillment = order.displayFulfillmentStatus.toLowerCase();
  return {
    id: legacy(order.id),
    admin_graphql_api_id: order.id,
    name: order.name,
    email: order.email,
    created_at: order.createdAt,
    updated_at: order.updatedAt,
    cancelled_at: order.cancelledAt,
    financial_status: order.displayFinancialStatus?.toLowerCase() ?? null,
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

/** The charge_balance job: reads the order from the platform and applies it; answers where the balance stands. */
async function runChargeBalance(ctx: JobRunContext<{ order_id: string }>): Promise<Record<string, unknown>> {
  const { shopId, payload: { order_id: orderId }, platform } = ctx;
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

export const chargeBalanceJobRun = defineJob({ ...chargeBalanceJob, run: runChargeBalance });
