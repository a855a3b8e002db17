import type { Db } from "../../core/db.ts";
import { conflict } from "../../core/errors.ts";
import { type JobHandle, enqueueJob } from "../../core/jobs.ts";
import { chargeBalanceJob } from "./jobs/charge-balance.ts";
import { chargeDecision, loadOrder } from "./model.ts";

/**
 * The core of charge_balance, shared by the action and the auto-collect job: in the caller's
 * transaction, locks the order, refuses (409) a cancelled or refunded order or one with nothing
 * outstanding, records balance_collection_requested_at and queues the charge job.
 */
export async function requestBalanceCharge(db: Db, shopId: string, orderId: string): Promise<JobHandle> {
  const { order } = await loadOrder(db, shopId, orderId, true);
  const decision = chargeDecision(order);
  if (decision.outcome !== "apply") throw conflict(decision.reason);
  await db.query("update preorder_orders set balance_requested_at = now(), updated_at = now() where id = $1", [order.id]);
  return enqueueJob(db, chargeBalanceJob, { order_id: order.id }, { shopId, total: 1 });
}
