import type { Db } from "../../core/db.ts";
import { queueLimitCountersForOrders } from "../limits/enqueue.ts";

/**
 * Links the order lines placed on the offer's current platform selling plan to the offer. An
 * order webhook links its lines itself; this is for lines that arrived before the offer's sync
 * recorded the plan id (the platform sells under a new plan as soon as it creates it), so they
 * count toward the offer's limits and show under its id. Run by the offer sync each time it
 * records the plan (src/preorders/sync/run.ts), and queues the limit counters the lines now move
 * (decision 0211). Answers how many lines it linked.
 */
export async function relinkOfferOrderLines(db: Db, shopId: string, offerId: string): Promise<number> {
  const { rows, rowCount } = await db.query<{ order_id: string }>(
    `update preorder_order_lines l set offer_id = po.id
     from preorder_offers po
     where po.id = $2 and po.shop_id = $1 and l.shop_id = $1 and l.selling_plan_id = po.platform_selling_plan_id
       and l.offer_id is distinct from po.id
     returning l.order_id`,
    [shopId, offerId],
  );
  if ((rowCount ?? 0) > 0) await queueLimitCountersForOrders(db, shopId, [...new Set(rows.map((r) => r.order_id))]);
  return rowCount ?? 0;
}
