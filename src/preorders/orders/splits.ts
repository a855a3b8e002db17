import type pg from "pg";
import { type Db, withTransaction } from "../../core/db.ts";
import { PermanentJobFailure, type TaskContext, enqueue } from "../../core/tasks.ts";
import type { PlatformRequester, RequestOptions } from "../../platform/client.ts";
import { PlatformError } from "../../platform/errors.ts";
import { getFulfillmentOrders, holdFulfillmentOrder } from "../../platform/operations/fulfillment-orders.ts";
import { completeDraftOrder, createDraftOrder, findOpenDraftOrder, editOrderQuantities, getDraftOrder, getOrderLineQuantities, splitFulfillmentOrder } from "../../platform/operations/order-splits.ts";
import { orderSplitTask } from "../notifications/task-refs.ts";
import { HOLD_HANDLE, HOLD_REASON, type FulfillmentHoldRecord, queueFulfillmentHolds } from "./fulfillment-holds.ts";
import { splitOrderAppEnabled } from "../../providers/integrations.ts";
import { type OrderSplitRecord, SPLIT_OF_ATTRIBUTE, SPLIT_REQUEST_TAG, type SplitOrderRecord, type SplitSettings, offerSplit } from "./split-record.ts";

/**
 * An offer's `shipping.fulfillment.split` on the platform (decision 0204). When a live order with
 * preorder items of a split offer arrives, ingest records the split as pending and queues one job
 * per order (`preorders_order_split:<order id>`) that:
 * - `fulfillments`: moves the preorder items of each open fulfillment order that also holds other
 *   items into a fulfillment order of their own (fulfillmentOrderSplit); with hold_fulfillments the
 *   hold job (decision 0198) then holds them;
 * - `orders`: makes one new order per offer (per variant with per_variant) of the offer's items
 *   (draftOrderCreate + draftOrderComplete: tagged order_tag, the split name as its PO number, paid
 *   through transaction_gateway, the original order's id as a custom attribute so ingest does not
 *   take it for a second preorder order), then sets the moved items' quantity to 0 on the original
 *   order (one order edit); with hold_fulfillments the new orders' fulfillment orders are held.
 * Progress is written to the order after each platform write (order_split), so a retry after a
 * failure or a crash neither splits twice nor makes a second new order; a draft whose completion
 * was not recorded is read back (draftOrder) before it is completed, and one whose creation was
 * asked for but never heard of is looked for (open drafts with its PO number and attribute) before
 * another is asked for, so none is left open on the store. Failures go to
 * order_split_error and are retried by graphile-worker; a platform refusal ends the job at once.
 */

const SPLIT_ATTEMPTS = 10;

/** How long after asking for a draft its absence from the platform's search is not taken as proof it was never made. */
const DRAFT_SEARCH_LAG_MS = 60_000;

/**
 * At a new live order's arrival: when one of its offers splits, records the split on the order and
 * queues the split job; or, with the account's split_order_app on, records it handed off and
 * answers the tag that asks that app to split the order (the service then splits nothing).
 * Answers the tags to add to the order.
 */
export async function requestOrderSplit(db: Db, shopId: string, orderId: string, offers: readonly { id: string; settings: Record<string, unknown> }[]): Promise<string[]> {
  const splitting = offers.filter((offer) => offerSplit(offer.settings) !== null);
  if (splitting.length === 0) return [];
  const handedOff = await splitOrderAppEnabled(db, shopId);
  const types = new Set(splitting.map((offer) => offerSplit(offer.settings)?.type));
  const split: OrderSplitRecord = {
    type: handedOff ? "app" : types.has("orders") ? "orders" : "fulfillments",
    state: handedOff ? "handed_off" : "pending",
    offer_ids: splitting.map((offer) => offer.id),
    fulfillment_orders: [],
    orders: [],
    edited: false,
    requested_at: new Date().toISOString(),
    done_at: null,
  };
  await db.query("update preorder_orders set order_split = $2, updated_at = now() where id = $1 and order_split is null", [orderId, JSON.stringify(split)]);
  if (handedOff) return [SPLIT_REQUEST_TAG];
  await queueOrderSplit(db, shopId, orderId);
  return [];
}

/** Queues the order's split job (keyed per order: queued twice, it runs once). */
export async function queueOrderSplit(db: Db, shopId: string, orderId: string): Promise<void> {
  await enqueue(db, orderSplitTask, { shop_id: shopId, order_id: orderId }, { jobKey: `${orderSplitTask.name}:${orderId}`, maxAttempts: SPLIT_ATTEMPTS });
}

interface SplitLine {
  platform_line_id: string;
  variant_id: string | null;
  quantity: number;
  /** The unit price the shopper was charged on the original order (numeric, as text). */
  price: string;
  offer_id: string;
  split: SplitSettings & { type: "fulfillments" | "orders" };
  holdReason: string;
}

interface SplitOrder {
  platform_order_id: string;
  name: string | null;
  email: string | null;
  customer_id: string | null;
  currency: string;
  status: string;
  order_split: OrderSplitRecord | null;
  fulfillment_holds: FulfillmentHoldRecord[];
}

/** The order's preorder lines whose offer splits, with the offer's split settings. */
async function splitLines(db: Db, orderId: string): Promise<SplitLine[]> {
  const { rows } = await db.query<{ platform_line_id: string; variant_id: string | null; quantity: number; price: string; offer_id: string; settings: Record<string, unknown> }>(
    `select l.platform_line_id, l.variant_id, l.quantity, l.price::text, l.offer_id, po.settings from preorder_order_lines l join preorder_offers po on po.id = l.offer_id
     where l.order_id = $1 and l.quantity > 0 order by l.platform_line_id`,
    [orderId],
  );
  return rows.flatMap((row) => {
    const split = offerSplit(row.settings);
    const shipping = (row.settings.shipping ?? {}) as { fulfillment?: { hold_reason?: string } };
    return split ? [{ ...row, split, holdReason: shipping.fulfillment?.hold_reason ?? "Preorder items are not in stock yet." }] : [];
  });
}

/** Writes the progress at once (outside any transaction): a platform write that happened stays recorded whatever fails next. */
async function record(pool: pg.Pool, orderId: string, split: OrderSplitRecord, holds?: FulfillmentHoldRecord[]): Promise<void> {
  await pool.query(
    "update preorder_orders set order_split = $2, fulfillment_holds = coalesce($3::jsonb, fulfillment_holds), updated_at = now() where id = $1",
    [orderId, JSON.stringify(split), holds ? JSON.stringify(holds) : null],
  );
}

/** fulfillments: the preorder items of each open fulfillment order that holds other items too, moved to their own. */
async function splitFulfillments(ctx: TaskContext, client: PlatformRequester, orderId: string, order: SplitOrder, split: OrderSplitRecord, lines: readonly SplitLine[], options: RequestOptions | undefined): Promise<void> {
  const ids = new Set(lines.map((l) => l.platform_line_id));
  const fulfillmentOrders = await getFulfillmentOrders(client, order.platform_order_id, options);
  if (fulfillmentOrders === null) throw new PermanentJobFailure(`the platform has no order ${order.platform_order_id}`);
  for (const fulfillmentOrder of fulfillmentOrders) {
    const pending = fulfillmentOrder.lineItems.filter((l) => l.remainingQuantity > 0);
    const preorder = pending.filter((l) => ids.has(l.lineItem.id));
    if (preorder.length === 0) continue;
    if (preorder.length === pending.length) {
      // Only preorder items in it (split by an earlier attempt, or ordered alone): already apart.
      if (!split.fulfillment_orders.includes(fulfillmentOrder.id)) split.fulfillment_orders.push(fulfillmentOrder.id);
      continue;
    }
    if (fulfillmentOrder.status !== "OPEN") continue;
    let createdId: string;
    try {
      createdId = (await splitFulfillmentOrder(client, fulfillmentOrder.id, preorder.map((l) => ({ id: l.id, quantity: l.remainingQuantity })), options)).id;
    } catch (error) {
      if (!(error instanceof PlatformError && error.kind === "user_errors")) throw error;
      // Refused because it is done: a split whose answer was lost (the client retried it) left the preorder items apart.
      const again = (await getFulfillmentOrders(client, order.platform_order_id, options)) ?? [];
      const apart = again.find((f) => {
        const open = f.lineItems.filter((l) => l.remainingQuantity > 0);
        return f.id !== fulfillmentOrder.id && open.length > 0 && open.every((l) => ids.has(l.lineItem.id));
      });
      if (!apart) throw error;
      createdId = apart.id;
    }
    split.fulfillment_orders.push(createdId);
    await record(ctx.pool, orderId, split);
  }
}

/** orders: the groups of moved lines (one per offer, or per variant), each with its split name. */
function orderGroups(order: SplitOrder, lines: readonly SplitLine[]): { group: SplitOrderRecord; settings: SplitLine["split"]; lines: SplitLine[] }[] {
  const groups = new Map<string, SplitLine[]>();
  for (const line of lines) {
    // A line whose variant the platform deleted cannot be put in a new order: it stays where it is
    // (the edit takes off only what a new order holds).
    if (line.variant_id === null) continue;
    const key = line.split.per_variant ? `${line.offer_id}:${line.variant_id}` : line.offer_id;
    groups.set(key, [...(groups.get(key) ?? []), line]);
  }
  return [...groups].map(([key, members], i) => {
    const settings = members[0]?.split;
    if (!settings) throw new Error("a split group without lines");
    const name = `${order.name ?? ""}${settings.order_suffix}${settings.sequential_number ? String(i + 1) : ""}`;
    return {
      group: { key, name, line_item_ids: members.map((l) => l.platform_line_id), variant_ids: [...new Set(members.flatMap((l) => (l.variant_id === null ? [] : [l.variant_id])))], draft_order_id: null, platform_order_id: null, platform_name: null },
      settings,
      lines: members,
    };
  });
}

/** orders: the new orders (made once each, across attempts), then the moved items off the original order. */
async function splitOrders(ctx: TaskContext, client: PlatformRequester, orderId: string, order: SplitOrder, split: OrderSplitRecord, lines: readonly SplitLine[], options: RequestOptions | undefined): Promise<void> {
  for (const { group: planned, settings, lines: members } of orderGroups(order, lines)) {
    let group = split.orders.find((g) => g.key === planned.key);
    if (!group) {
      group = planned;
      split.orders.push(group);
    }
    if (group.platform_order_id !== null) continue;
    if (group.draft_order_id !== null) {
      // Made by an earlier attempt: completed already if that attempt got that far.
      const draft = await getDraftOrder(client, group.draft_order_id, options);
      if (draft?.order) {
        group.platform_order_id = draft.order.id;
        group.platform_name = draft.order.name;
        await record(ctx.pool, orderId, split);
        continue;
      }
    } else {
      // An earlier attempt asked for the draft and never heard its id (a lost answer, a crash):
      // the platform may hold it, open; it is that draft or none.
      const made = group.draft_requested_at
        ? await findOpenDraftOrder(client, { poNumber: group.name, attribute: { key: SPLIT_OF_ATTRIBUTE, value: order.platform_order_id }, tag: settings.order_tag || null }, options)
        : null;
      if (made === null && group.draft_requested_at && Date.now() - Date.parse(group.draft_requested_at) < DRAFT_SEARCH_LAG_MS) {
        // The platform's search can lag its writes: a draft made a moment ago may not be found yet.
        // Asking again now could make a second one; the job's next attempt looks again.
        throw new Error(`the draft order asked for at ${group.draft_requested_at} is not found yet; looking again on the next attempt`);
      }
      if (made === null) {
        group.draft_requested_at = new Date().toISOString();
        await record(ctx.pool, orderId, split);
      }
      group.draft_order_id = made ?? await createDraftOrder(
        client,
        {
          email: order.email,
          purchasingEntity: order.customer_id === null ? null : { customerId: order.customer_id },
          // At the price the shopper was charged, not the catalog's price of the day of the split.
          lineItems: members.flatMap((l) => (l.variant_id === null ? [] : [{ variantId: l.variant_id, quantity: l.quantity, priceOverride: { amount: l.price, currencyCode: order.currency } }])),
          tags: [settings.order_tag],
          poNumber: group.name,
          customAttributes: [{ key: SPLIT_OF_ATTRIBUTE, value: order.platform_order_id }],
        },
        options,
      );
      await record(ctx.pool, orderId, split);
    }
    let created: { id: string; name: string };
    try {
      created = await completeDraftOrder(client, group.draft_order_id, settings.transaction_gateway, options);
    } catch (error) {
      if (!(error instanceof PlatformError && error.kind === "user_errors")) throw error;
      // Refused as already completed: a completion whose answer was lost (the client retried it).
      const draft = await getDraftOrder(client, group.draft_order_id, options);
      if (!draft?.order) throw error;
      created = draft.order;
    }
    group.platform_order_id = created.id;
    group.platform_name = created.name;
    await record(ctx.pool, orderId, split);
  }
  if (!split.edited) {
    // Only what is still on the original: a retry after a committed edit finds nothing left to take off.
    const original = await getOrderLineQuantities(client, order.platform_order_id, options);
    if (original === null) throw new PermanentJobFailure(`the platform has no order ${order.platform_order_id}`);
    const moved = new Set(split.orders.flatMap((g) => g.line_item_ids));
    const left = original.lines.filter((l) => moved.has(l.id) && l.currentQuantity > 0);
    if (left.length > 0) {
      const names = split.orders.map((g) => g.platform_name ?? g.name).join(", ");
      await editOrderQuantities(client, order.platform_order_id, left.map((l) => ({ lineItemId: l.id, quantity: 0 })), `Preorder items moved to ${names}`, options);
    }
    split.edited = true;
    await record(ctx.pool, orderId, split);
  }
}

/**
 * orders with hold_fulfillments: the new orders' fulfillment orders held as 0198 holds, recorded
 * on the original's preorder record. Under the hold job's lock, and only while the order is not
 * released: a release that came first holds nothing, one that comes after finds these holds on the
 * record (read afresh, so the hold job's own marks are kept).
 */
async function holdNewOrders(ctx: TaskContext, client: PlatformRequester, orderId: string, split: OrderSplitRecord, lines: readonly SplitLine[], options: RequestOptions | undefined): Promise<void> {
  const wanted = split.orders.filter((g) => g.platform_order_id !== null && lines.find((l) => g.line_item_ids.includes(l.platform_line_id))?.split.hold_fulfillments);
  if (wanted.length === 0) return;
  await withTransaction(ctx.pool, async (db) => {
    await db.query("select pg_advisory_xact_lock(hashtext('preorders_fulfillment_holds:' || $1))", [orderId]);
    const { rows } = await db.query<{ released_at: Date | null; fulfillment_holds: FulfillmentHoldRecord[] }>("select released_at, fulfillment_holds from preorder_orders where id = $1", [orderId]);
    const current = rows[0];
    if (!current || current.released_at !== null) return;
    const holds = [...current.fulfillment_holds];
    try {
      for (const group of wanted) {
        const member = lines.find((l) => group.line_item_ids.includes(l.platform_line_id));
        if (!member || group.platform_order_id === null) continue;
        const fulfillmentOrders = (await getFulfillmentOrders(client, group.platform_order_id, options)) ?? [];
        for (const fulfillmentOrder of fulfillmentOrders) {
          if (fulfillmentOrder.status !== "OPEN") continue;
          if (fulfillmentOrder.fulfillmentHolds.some((h) => h.heldByRequestingApp && h.handle === HOLD_HANDLE)) continue;
          const result = await holdFulfillmentOrder(client, fulfillmentOrder.id, { reason: HOLD_REASON, reasonNotes: member.holdReason, handle: HOLD_HANDLE, notifyMerchant: false }, options);
          holds.push({
            fulfillment_order_id: result.fulfillmentOrder.id,
            hold_id: result.fulfillmentHold.id,
            offer_ids: [member.offer_id],
            reason: result.fulfillmentHold.reason,
            reason_notes: result.fulfillmentHold.reasonNotes,
            held_at: new Date().toISOString(),
            released_at: null,
          });
        }
      }
    } catch (error) {
      // What the platform holds now, recorded beside the failure (this transaction rolls back).
      await ctx.pool.query("update preorder_orders set fulfillment_holds = $2, updated_at = now() where id = $1", [orderId, JSON.stringify(holds)]);
      throw error;
    }
    await db.query("update preorder_orders set fulfillment_holds = $2, updated_at = now() where id = $1", [orderId, JSON.stringify(holds)]);
  });
}

/** The split job's run: answers what it did; a failure is recorded on the order and thrown. */
export async function runOrderSplit(ctx: TaskContext, payload: { shop_id: string; order_id: string }): Promise<string> {
  try {
    const { rows } = await ctx.pool.query<SplitOrder>(
      "select platform_order_id, name, email, customer_id, currency, status, order_split, fulfillment_holds from preorder_orders where id = $1 and shop_id = $2",
      [payload.order_id, payload.shop_id],
    );
    const order = rows[0];
    if (!order?.order_split) return "skipped: no split for this order";
    const split = order.order_split;
    if (split.state !== "pending") return `skipped: the split is ${split.state}`;
    if (order.status === "cancelled" || order.status === "refunded" || order.status === "fulfilled") return `skipped: the order is ${order.status}`;
    const lines = await splitLines(ctx.pool, payload.order_id);
    if (lines.length === 0) return "skipped: no preorder item of a split offer";
    const client = await ctx.platform.clientFor(ctx.pool, payload.shop_id);
    const options = ctx.signal ? { signal: ctx.signal } : undefined;
    const byType = (type: string) => lines.filter((l) => l.split.type === type);
    if (byType("fulfillments").length > 0) await splitFulfillments(ctx, client, payload.order_id, order, split, byType("fulfillments"), options);
    if (byType("orders").length > 0) {
      await splitOrders(ctx, client, payload.order_id, order, split, byType("orders"), options);
      await holdNewOrders(ctx, client, payload.order_id, split, byType("orders"), options);
    }
    split.state = "done";
    split.done_at = new Date().toISOString();
    // Done and the last attempt's error cleared in one write: a reader never sees a done split with an error.
    await ctx.pool.query("update preorder_orders set order_split = $2, order_split_error = null, updated_at = now() where id = $1", [payload.order_id, JSON.stringify(split)]);
    // fulfillments with hold_fulfillments: the preorder items' own fulfillment orders are held by the hold job (0198).
    if (byType("fulfillments").some((l) => l.split.hold_fulfillments)) await queueFulfillmentHolds(ctx.pool, payload.shop_id, payload.order_id);
    const outcome = `split: ${split.fulfillment_orders.length} fulfillment order(s), ${split.orders.length} new order(s)`;
    ctx.log.info({ orderId: payload.order_id, outcome }, "order split");
    return outcome;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await ctx.pool.query("update preorder_orders set order_split_error = $2, updated_at = now() where id = $1", [payload.order_id, message]);
    // The platform refusing the split: another attempt would be refused alike.
    if (error instanceof PlatformError && error.kind === "user_errors") throw new PermanentJobFailure(message);
    throw error;
  }
}
