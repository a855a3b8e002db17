import { withTransaction } from "../../core/db.ts";
import { ApiError } from "../../core/errors.ts";
import { enqueueFlowTriggers, legacyId } from "../../providers/flow/enqueue.ts";
import type { TaskContext } from "../../core/tasks.ts";
import { addTags } from "../../platform/operations/tags.ts";
import { claimNotifications } from "../notifications/ledger.ts";
import { loadPreorderSettings } from "../settings/settings.ts";
import { requestBalanceCharge } from "./charge.ts";

/**
 * Runs of the jobs order ingestion schedules (src/preorders/orders/lifecycle.ts). Each checks the
 * facts when it runs, not when it was queued: a cancelled, refunded or paid order is not charged
 * or reminded.
 */

/**
 * The automatic balance charge: the same request as the charge_balance action (its charge job
 * then collects). Records what it decided on the order (auto_collect_result) and answers it.
 */
export async function runAutoCollect(ctx: TaskContext, payload: { shop_id: string; order_id: string; trigger: "due_date" | "on_fulfillment" }): Promise<string> {
  const result = await withTransaction(ctx.pool, async (db) => {
    const { rows } = await db.query<{ auto_collect: string | null; balance_requested_at: Date | null }>(
      "select auto_collect, balance_requested_at from preorder_orders where id = $1 and shop_id = $2 for update",
      [payload.order_id, payload.shop_id],
    );
    const order = rows[0];
    if (!order) return "order gone";
    const settings = await loadPreorderSettings(db, payload.shop_id);
    let outcome: string;
    if (!settings.orders.auto_collect_enabled) outcome = "skipped: auto-collect is off for the shop";
    else if (order.auto_collect !== payload.trigger) outcome = `skipped: the order is not auto-collected ${payload.trigger === "due_date" ? "at its due date" : "on fulfillment"}`;
    else if (order.balance_requested_at !== null) outcome = "skipped: the balance was already requested";
    else {
      try {
        const handle = await requestBalanceCharge(db, payload.shop_id, payload.order_id);
        outcome = `requested: job ${handle.job_id}`;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        outcome = `skipped: ${error.message}`;
      }
    }
    await db.query("update preorder_orders set auto_collect_result = $2, auto_collect_ran_at = now() where id = $1", [payload.order_id, outcome]);
    return outcome;
  });
  ctx.log.info({ orderId: payload.order_id, trigger: payload.trigger, result }, "auto-collect");
  return result;
}

/** The balance_due message: claimed only while the order still owes a balance. */
export async function runBalanceDue(ctx: TaskContext, payload: { shop_id: string; order_id: string }): Promise<number> {
  return withTransaction(ctx.pool, async (db) => {
    const { rows } = await db.query<{ status: string; total_outstanding: string; balance_due_at: Date | null; platform_order_id: string; customer_id: string | null }>(
      "select status, total_outstanding::text, balance_due_at, platform_order_id, customer_id from preorder_orders where id = $1 and shop_id = $2",
      [payload.order_id, payload.shop_id],
    );
    const order = rows[0];
    if (!order || order.status !== "awaiting_balance" || order.balance_due_at === null) return 0;
    await enqueueFlowTriggers(db, [
      {
        shopId: payload.shop_id,
        trigger: "preorder_balance_due",
        key: `${payload.order_id}:${order.balance_due_at.toISOString()}`,
        payload: {
          order_id: legacyId(order.platform_order_id),
          customer_id: legacyId(order.customer_id),
          "Amount due": order.total_outstanding,
          "Due at": order.balance_due_at.toISOString(),
        },
      },
    ]);
    const claimed = await claimNotifications(
      db,
      { shopId: payload.shop_id, stage: "balance_due", eventKey: order.balance_due_at.toISOString(), context: { amount: order.total_outstanding, due_at: order.balance_due_at.toISOString() } },
      [payload.order_id],
      null,
    );
    return claimed.length;
  });
}

/** Pushes the app's tags of the order to the platform order (tagsAdd merges; a throw is retried). */
export async function runOrderTags(ctx: TaskContext, payload: { shop_id: string; order_id: string }): Promise<number> {
  const { rows } = await ctx.pool.query<{ platform_order_id: string; app_tags: string[] }>(
    "select platform_order_id, app_tags from preorder_orders where id = $1 and shop_id = $2",
    [payload.order_id, payload.shop_id],
  );
  const order = rows[0];
  if (!order || order.app_tags.length === 0) return 0;
  const client = await ctx.platform.clientFor(ctx.pool, payload.shop_id);
  await addTags(client, order.platform_order_id, order.app_tags, ctx.signal ? { signal: ctx.signal } : undefined);
  return order.app_tags.length;
}
