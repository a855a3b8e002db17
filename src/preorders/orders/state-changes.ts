import type { Db } from "../../core/db.ts";
import { refreshVariantCounts, variantsOfOrders } from "./counts.ts";
import { queueReleaseOfHolds } from "./fulfillment-holds.ts";
import { queueLimitCountersForOrders } from "../limits/enqueue.ts";

/**
 * Marks orders released (records released_at) and, for those with platform fulfillment holds
 * (their offer's shipping.fulfillment.hold), queues the job that releases the holds on the platform.
 */
export async function markReleased(db: Db, shopId: string, orderIds: readonly string[]): Promise<void> {
  if (orderIds.length === 0) return;
  const { rows } = await db.query<{ id: string }>(
    "update preorder_orders set released_at = now(), updated_at = now() where shop_id = $1 and id = any($2::uuid[]) and released_at is null returning id",
    [shopId, orderIds],
  );
  await queueReleaseOfHolds(db, shopId, rows.map((r) => r.id));
}

/**
 * Cancels preorder orders in the app (records cancelled_at), recounts their variants and queues
 * the limit counters they move. The
 * platform's Admin subset has no order cancellation: the platform order stays as it is.
 */
export async function markCancelled(db: Db, shopId: string, orderIds: readonly string[]): Promise<void> {
  if (orderIds.length === 0) return;
  await db.query(
    "update preorder_orders set cancelled_at = now(), updated_at = now() where shop_id = $1 and id = any($2::uuid[]) and cancelled_at is null",
    [shopId, orderIds],
  );
  await refreshVariantCounts(db, shopId, await variantsOfOrders(db, orderIds));
  // The units they held are free again: the checkout's counters follow (decision 0211).
  await queueLimitCountersForOrders(db, shopId, orderIds);
}
