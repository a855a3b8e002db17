import type pg from "pg";
import { withTransaction } from "../../core/db.ts";
import { queueLimitCountersForOrders } from "../limits/enqueue.ts";

/**
 * Links the order lines placed on any of the offer's platform selling plans (one per payment
 * option, preorder_offer_selling_plans, decision 0212; or its platform_selling_plan_id) to the
 * offer, with the payment option of the plan. An order webhook links its lines itself; this is
 * for lines that arrived before the offer's sync recorded the plan id (the platform sells under a
 * new plan as soon as it creates it), so they count toward the offer's limits and show under its
 * id. Run by the offer sync each time it records the plans (src/preorders/sync/run.ts), and queues
 * the limit counters the lines now move (decision 0211), in the same transaction: linked lines
 * without their counter jobs would stay so, as the next sync's relink finds nothing to change.
 * Answers how many lines it linked.
 */
export async function relinkOfferOrderLines(pool: pg.Pool, shopId: string, offerId: string): Promise<number> {
  return withTransaction(pool, async (db) => {
    const byPlans = await db.query<{ order_id: string }>(
      `update preorder_order_lines l set offer_id = sp.offer_id, payment_option = sp.payment_option
       from preorder_offer_selling_plans sp
       where sp.offer_id = $2 and sp.shop_id = $1 and l.shop_id = $1 and l.selling_plan_id = sp.platform_selling_plan_id
         and (l.offer_id is distinct from sp.offer_id or l.payment_option is distinct from sp.payment_option)
       returning l.order_id`,
      [shopId, offerId],
    );
    const byOffer = await db.query<{ order_id: string }>(
      `update preorder_order_lines l set offer_id = po.id
       from preorder_offers po
       where po.id = $2 and po.shop_id = $1 and l.shop_id = $1 and l.selling_plan_id = po.platform_selling_plan_id
         and l.offer_id is distinct from po.id
       returning l.order_id`,
      [shopId, offerId],
    );
    const orders = [...new Set([...byPlans.rows, ...byOffer.rows].map((r) => r.order_id))];
    if (orders.length > 0) await queueLimitCountersForOrders(db, shopId, orders);
    return (byPlans.rowCount ?? 0) + (byOffer.rowCount ?? 0);
  });
}
