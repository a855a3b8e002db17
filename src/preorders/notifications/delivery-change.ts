import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { AnyAction } from "../../core/action.ts";
import { type Db, withTransaction } from "../../core/db.ts";
import { isUuid } from "../../core/params.ts";
import { enqueue } from "../../core/tasks.ts";
import type { TaskContext } from "../../core/tasks.ts";
import { claimNotifications, offerDelivery } from "./ledger.ts";
import { type DeliverySnapshot, shippingDateChangeTask } from "./task-refs.ts";

/**
 * The shipping_date_change notification: a write action on an offer's shipping group is wrapped
 * so that, when it changes the offer's delivery (type, date or days), a job is queued in the same
 * transaction; the job claims the message for every open order of the offer.
 */

async function deliveryOf(db: Db, shopId: string, offerId: string): Promise<DeliverySnapshot | undefined> {
  if (!isUuid(offerId)) return undefined;
  const { rows } = await db.query<{ settings: Record<string, unknown> }>(
    "select settings from preorder_offers where shop_id = $1 and id = $2 and deleted_at is null for update",
    [shopId, offerId],
  );
  const row = rows[0];
  return row ? offerDelivery(row.settings) : undefined;
}

/** The action, queuing the notification job when its write changed the offer's delivery. Reads are returned as they are. */
export function notifyOnDeliveryChange(action: AnyAction): AnyAction {
  if (action.kind !== "write") return action;
  return {
    ...action,
    async handler(ctx, args) {
      const offerId = (args.params as { id?: unknown }).id;
      const before = typeof offerId === "string" ? await deliveryOf(ctx.db, ctx.shopId, offerId) : undefined;
      const result = await action.handler(ctx, args);
      if (before && typeof offerId === "string") {
        const after = await deliveryOf(ctx.db, ctx.shopId, offerId);
        if (after && !isDeepStrictEqual(before, after)) {
          const changeId = randomUUID();
          await enqueue(
            ctx.db,
            shippingDateChangeTask,
            { shop_id: ctx.shopId, offer_id: offerId, change_id: changeId, previous: before, current: after },
            { jobKey: `${shippingDateChangeTask.name}:${changeId}` },
          );
        }
      }
      return result;
    },
  };
}

/** Open orders: not cancelled, refunded or fulfilled. */
const OPEN_STATUSES = ["placed", "awaiting_balance", "balance_collected", "released"];

/** The job: claims shipping_date_change for every open order with a line on the offer. Answers how many were claimed. */
export async function runShippingDateChange(ctx: TaskContext, payload: { shop_id: string; offer_id: string; change_id: string; previous: DeliverySnapshot; current: DeliverySnapshot }): Promise<number> {
  return withTransaction(ctx.pool, async (db) => {
    const { rows } = await db.query<{ id: string }>(
      `select distinct o.id from preorder_orders o join preorder_order_lines l on l.order_id = o.id
       where o.shop_id = $1 and l.offer_id = $2 and o.status = any($3::text[])`,
      [payload.shop_id, payload.offer_id, OPEN_STATUSES],
    );
    const claimed = await claimNotifications(
      db,
      { shopId: payload.shop_id, stage: "shipping_date_change", eventKey: payload.change_id, context: { previous: payload.previous, current: payload.current } },
      rows.map((r) => r.id),
      payload.offer_id,
    );
    return claimed.length;
  });
}
