import type { Db } from "../../core/db.ts";
import { withTransaction } from "../../core/db.ts";
import { PermanentJobFailure, type TaskContext, enqueue } from "../../core/tasks.ts";
import type { PlatformRequester, RequestOptions } from "../../platform/client.ts";
import { PlatformError } from "../../platform/errors.ts";
import { unique } from "../../platform/operations/chunk.ts";
import {
  type FulfillmentHoldInput,
  type FulfillmentHoldReason,
  type FulfillmentOrder,
  getFulfillmentOrders,
  holdFulfillmentOrder,
  releaseFulfillmentOrderHolds,
} from "../../platform/operations/fulfillment-orders.ts";
import { fulfillmentHoldsTask } from "../notifications/task-refs.ts";
import { shippingGroup } from "../offers/groups/plan-groups.ts";

/**
 * An offer's `shipping.fulfillment.hold` on the platform (decision 0198): when a live order of
 * such an offer arrives, its fulfillment orders holding the offer's preorder line items are put on
 * hold (reason INVENTORY_OUT_OF_STOCK, the offer's `hold_reason` as the notes, the app's handle
 * `preorder`); a fulfillment order that also holds other items is split by the platform, so only
 * the preorder items wait. Releasing the order (`release`, `bulk_release`) releases those holds.
 *
 * One job per order (`preorders_fulfillment_holds:<order id>`) brings the holds to what the order
 * should have when it runs: held while the order is unreleased, released once it is. Holds are
 * found again on the platform by their handle, so a retry after a crash neither holds twice nor
 * forgets one. A failure is recorded on the order (`fulfillment_hold_error`, beside the holds placed
 * before it) and retried by
 * graphile-worker; the platform refusing a hold (user errors) ends the job at once.
 */

/** Why the platform is told the items wait: they are sold before they are in stock. */
export const HOLD_REASON: FulfillmentHoldReason = "INVENTORY_OUT_OF_STOCK";
/** The app's handle of its holds: unique among the app's holds on one fulfillment order. */
export const HOLD_HANDLE = "preorder";
const HOLD_ATTEMPTS = 10;

/** A hold the app placed, as the order records it (sql/108). */
export interface FulfillmentHoldRecord {
  fulfillment_order_id: string;
  hold_id: string;
  offer_ids: string[];
  reason: string;
  reason_notes: string | null;
  held_at: string;
  released_at: string | null;
}

/**
 * Whether the offer's settings hold fulfillment, and the notes they give: `fulfillment.hold`, or a
 * split into fulfillments with `split.hold_fulfillments` (the split job queues this job once the
 * preorder items have their own fulfillment orders, decision 0204).
 */
export function offerHold(settings: Record<string, unknown>): { hold: boolean; reason: string } {
  const { fulfillment } = shippingGroup.schema.parse(settings.shipping ?? {});
  const splitHold = fulfillment.split.type === "fulfillments" && fulfillment.split.hold_fulfillments;
  return { hold: fulfillment.hold || splitHold, reason: fulfillment.hold_reason };
}

/** Queues the order's hold job (keyed per order: queued twice, it runs once with the latest facts). */
export async function queueFulfillmentHolds(db: Db, shopId: string, orderId: string): Promise<void> {
  await enqueue(db, fulfillmentHoldsTask, { shop_id: shopId, order_id: orderId }, { jobKey: `${fulfillmentHoldsTask.name}:${orderId}`, maxAttempts: HOLD_ATTEMPTS });
}

/** Queues the hold job of the released orders that have holds, or an offer that holds (its hold job may not have run yet). */
export async function queueReleaseOfHolds(db: Db, shopId: string, orderIds: readonly string[]): Promise<void> {
  if (orderIds.length === 0) return;
  const { rows } = await db.query<{ id: string }>(
    `select o.id from preorder_orders o
     where o.shop_id = $1 and o.id = any($2::uuid[]) and o.released_at is not null
       and (o.fulfillment_holds <> '[]'::jsonb or exists (
         select 1 from preorder_order_lines l join preorder_offers po on po.id = l.offer_id
         where l.order_id = o.id and l.selling_plan_id is not null and coalesce((po.settings #>> '{shipping,fulfillment,hold}')::boolean, false)))`,
    [shopId, orderIds],
  );
  for (const row of rows) await queueFulfillmentHolds(db, shopId, row.id);
}

interface HoldingOffer {
  offerId: string;
  reason: string;
}

/** The order's preorder line ids whose offer holds fulfillment, with that offer. */
async function heldLines(db: Db, orderId: string): Promise<Map<string, HoldingOffer>> {
  const { rows } = await db.query<{ platform_line_id: string; offer_id: string; settings: Record<string, unknown> }>(
    `select l.platform_line_id, l.offer_id, po.settings from preorder_order_lines l join preorder_offers po on po.id = l.offer_id
     where l.order_id = $1 and l.selling_plan_id is not null order by l.platform_line_id`,
    [orderId],
  );
  const lines = new Map<string, HoldingOffer>();
  for (const row of rows) {
    const { hold, reason } = offerHold(row.settings);
    if (hold) lines.set(row.platform_line_id, { offerId: row.offer_id, reason });
  }
  return lines;
}

const ours = (f: FulfillmentOrder) => f.fulfillmentHolds.filter((h) => h.heldByRequestingApp && h.handle === HOLD_HANDLE);

/** Holds each open fulfillment order with the lines of a hold offer; answers the records, the ones already there kept. */
async function placeHolds(
  client: PlatformRequester,
  fulfillmentOrders: readonly FulfillmentOrder[],
  lines: ReadonlyMap<string, HoldingOffer>,
  records: FulfillmentHoldRecord[],
  options: RequestOptions | undefined,
): Promise<number> {
  let placed = 0;
  const now = new Date().toISOString();
  for (const fulfillmentOrder of fulfillmentOrders) {
    const pending = fulfillmentOrder.lineItems.filter((l) => l.remainingQuantity > 0);
    const preorder = pending.filter((l) => lines.has(l.lineItem.id));
    if (preorder.length === 0) continue;
    const offers = unique(preorder.map((l) => lines.get(l.lineItem.id)?.offerId ?? ""));
    const notes = unique(preorder.map((l) => lines.get(l.lineItem.id)?.reason ?? "")).join(" ");
    const existing = ours(fulfillmentOrder)[0];
    if (existing) {
      // Placed by an attempt that did not get to record it.
      if (!records.some((r) => r.hold_id === existing.id)) {
        records.push({ fulfillment_order_id: fulfillmentOrder.id, hold_id: existing.id, offer_ids: offers, reason: existing.reason, reason_notes: existing.reasonNotes, held_at: now, released_at: null });
      }
      continue;
    }
    // CLOSED, CANCELLED, IN_PROGRESS...: past holding.
    if (fulfillmentOrder.status !== "OPEN" && fulfillmentOrder.status !== "ON_HOLD") continue;
    const input: FulfillmentHoldInput = { reason: HOLD_REASON, reasonNotes: notes, handle: HOLD_HANDLE, notifyMerchant: false };
    // Other items in it: hold only the preorder ones (the platform splits the rest off, still open).
    // One already held by someone else cannot be split: it is held whole.
    if (preorder.length < pending.length && fulfillmentOrder.status === "OPEN") {
      input.fulfillmentOrderLineItems = preorder.map((l) => ({ id: l.id, quantity: l.remainingQuantity }));
    }
    const result = await holdFulfillmentOrder(client, fulfillmentOrder.id, input, options);
    records.push({
      fulfillment_order_id: result.fulfillmentOrder.id,
      hold_id: result.fulfillmentHold.id,
      offer_ids: offers,
      reason: result.fulfillmentHold.reason,
      reason_notes: result.fulfillmentHold.reasonNotes,
      held_at: now,
      released_at: null,
    });
    placed++;
  }
  return placed;
}

/** Releases every hold of the app's handle on the order's fulfillment orders; records them released. */
async function releaseHolds(client: PlatformRequester, fulfillmentOrders: readonly FulfillmentOrder[], records: FulfillmentHoldRecord[], options: RequestOptions | undefined): Promise<number> {
  let released = 0;
  const now = new Date().toISOString();
  for (const fulfillmentOrder of fulfillmentOrders) {
    for (const hold of ours(fulfillmentOrder)) {
      await releaseFulfillmentOrderHolds(client, fulfillmentOrder.id, [hold.id], options);
      released++;
      const record = records.find((r) => r.hold_id === hold.id);
      if (record) record.released_at = now;
      else records.push({ fulfillment_order_id: fulfillmentOrder.id, hold_id: hold.id, offer_ids: [], reason: hold.reason, reason_notes: hold.reasonNotes, held_at: now, released_at: now });
    }
  }
  // Gone from the platform already (released by the merchant, or the order closed): nothing left to release.
  for (const record of records) record.released_at ??= now;
  return released;
}

interface HoldOrder {
  platform_order_id: string;
  /** The new orders of a split into orders (decision 0204): their holds are released with the order's. */
  split_order_ids: string[];
  status: string;
  released_at: Date | null;
  fulfillment_holds: FulfillmentHoldRecord[];
}

/** The hold job's run: answers what it did; a failure is recorded on the order and thrown. */
export async function runFulfillmentHolds(ctx: TaskContext, payload: { shop_id: string; order_id: string }): Promise<string> {
  // What the platform holds now, kept past a rollback: a hold placed before a later one failed is
  // real, and a release must find it on the order even if the offer stops holding meanwhile.
  let progress: FulfillmentHoldRecord[] | undefined;
  try {
    const outcome = await withTransaction(ctx.pool, async (db) => {
      // One run per order at a time: a release queued while a hold runs waits for it, then sees its holds.
      await db.query("select pg_advisory_xact_lock(hashtext('preorders_fulfillment_holds:' || $1))", [payload.order_id]);
      const { rows } = await db.query<HoldOrder>(
        `select platform_order_id, status, released_at, fulfillment_holds,
           array(select g->>'platform_order_id' from jsonb_array_elements(coalesce(order_split->'orders', '[]'::jsonb)) g where g->>'platform_order_id' is not null) as split_order_ids
         from preorder_orders where id = $1 and shop_id = $2`,
        [payload.order_id, payload.shop_id],
      );
      const order = rows[0];
      if (!order) return "order gone";
      const records = [...order.fulfillment_holds];
      progress = records;
      const releasing = order.released_at !== null;
      const lines = releasing ? new Map<string, HoldingOffer>() : await heldLines(db, payload.order_id);
      if (!releasing && lines.size === 0) return "skipped: no offer of the order holds fulfillment";
      if (!releasing && (order.status === "cancelled" || order.status === "refunded" || order.status === "fulfilled")) return `skipped: the order is ${order.status}`;
      if (releasing && records.length === 0 && (await heldLines(db, payload.order_id)).size === 0) return "skipped: nothing to release";
      const client = await ctx.platform.clientFor(ctx.pool, payload.shop_id);
      const options = ctx.signal ? { signal: ctx.signal } : undefined;
      const fulfillmentOrders = await getFulfillmentOrders(client, order.platform_order_id, options);
      if (fulfillmentOrders === null) throw new PermanentJobFailure(`the platform has no order ${order.platform_order_id}`);
      if (releasing) for (const id of order.split_order_ids) fulfillmentOrders.push(...((await getFulfillmentOrders(client, id, options)) ?? []));
      const count = releasing ? await releaseHolds(client, fulfillmentOrders, records, options) : await placeHolds(client, fulfillmentOrders, lines, records, options);
      await db.query("update preorder_orders set fulfillment_holds = $2, fulfillment_hold_error = null, updated_at = now() where id = $1", [payload.order_id, JSON.stringify(records)]);
      return `${releasing ? "released" : "held"} ${count} fulfillment order(s)`;
    });
    ctx.log.info({ orderId: payload.order_id, outcome }, "fulfillment holds");
    return outcome;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await withTransaction(ctx.pool, async (db) => {
      await db.query("select pg_advisory_xact_lock(hashtext('preorders_fulfillment_holds:' || $1))", [payload.order_id]);
      await db.query("update preorder_orders set fulfillment_holds = coalesce($3::jsonb, fulfillment_holds), fulfillment_hold_error = $2, updated_at = now() where id = $1", [
        payload.order_id,
        message,
        progress ? JSON.stringify(progress) : null,
      ]);
    });
    // The platform refusing the hold or release: another attempt would be refused alike.
    if (error instanceof PlatformError && error.kind === "user_errors") throw new PermanentJobFailure(message);
    throw error;
  }
}
