import type { Context } from "../context.ts";
import { byId, paginate } from "../connection.ts";
import { gid, parseGid } from "../ids.ts";
import type { FulfillmentHold, FulfillmentHoldReason, FulfillmentOrder, FulfillmentOrderLineItem, Order } from "../model.ts";
import type { ConnectionArgs, Resolvers } from "./types.ts";

/**
 * Fulfillment orders as the platform's Admin API has them: an order gets one at creation, OPEN,
 * with each line item's quantity remaining. `fulfillmentOrderHold` puts a hold on one (OPEN →
 * ON_HOLD; an app may add up to 10 holds, each with its own handle); with
 * `fulfillmentOrderLineItems` naming part of it, it is split first: the given quantities stay in
 * the held one and the rest moves to a new OPEN one (`remainingFulfillmentOrder`).
 * `fulfillmentOrderReleaseHold` releases the given holds (all of them without `holdIds`); when
 * the last one goes the fulfillment order is OPEN again. A CLOSED or CANCELLED one cannot be held.
 */

/** The platform's limit on one app's holds on one fulfillment order. */
export const MAX_HOLDS_PER_APP = 10;
const MAX_HANDLE_LENGTH = 64;

const REASON_TEXT: Record<FulfillmentHoldReason, string> = {
  AWAITING_PAYMENT: "Awaiting payment",
  AWAITING_RETURN_ITEMS: "Awaiting return items",
  HIGH_RISK_OF_FRAUD: "High risk of fraud",
  INCORRECT_ADDRESS: "Incorrect address",
  INVENTORY_OUT_OF_STOCK: "Inventory out of stock",
  ONLINE_STORE_POST_PURCHASE_CROSS_SELL: "Post-purchase upsell",
  OTHER: "Other",
  UNKNOWN_DELIVERY_DATE: "Unknown delivery date",
};

/** A user error of these mutations: the code is the mutation's own enum, or null where the platform gives none. */
class FulfillmentErrors {
  readonly list: { field: string[] | null; message: string; code: string | null }[] = [];

  add(field: readonly string[] | null, message: string, code: string | null): void {
    this.list.push({ field: field ? [...field] : null, message, code });
  }

  get any(): boolean {
    return this.list.length > 0;
  }
}

function findFulfillmentOrder(ctx: Context, id: string): FulfillmentOrder | undefined {
  const parsed = parseGid(id);
  return parsed?.type === "FulfillmentOrder" ? ctx.store.fulfillmentOrder(parsed.id) : undefined;
}

interface HoldInput {
  reason: FulfillmentHoldReason;
  reasonNotes?: string | null;
  notifyMerchant?: boolean | null;
  externalId?: string | null;
  handle?: string | null;
  fulfillmentOrderLineItems?: { id: string; quantity: number }[] | null;
}

/** The line items to hold, by fulfillment order line item id, when they are valid and not the whole order. */
function heldQuantities(fulfillmentOrder: FulfillmentOrder, items: readonly { id: string; quantity: number }[], errors: FulfillmentErrors): Map<number, number> | undefined {
  const wanted = new Map<number, number>();
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const field = ["fulfillmentHold", "fulfillmentOrderLineItems", String(i)];
    const parsed = parseGid(item.id);
    const line = parsed?.type === "FulfillmentOrderLineItem" ? fulfillmentOrder.lineItems.find((l) => l.id === parsed.id) : undefined;
    const repeated = seen.has(item.id);
    seen.add(item.id);
    if (repeated) {
      errors.add([...field, "id"], "The fulfillment order line items must be unique.", "DUPLICATED_FULFILLMENT_ORDER_LINE_ITEMS");
    } else if (item.quantity <= 0) {
      errors.add([...field, "quantity"], "The fulfillment order line item quantity must be greater than 0.", "GREATER_THAN_ZERO");
    } else if (!line || item.quantity > line.remainingQuantity) {
      errors.add([...field, "quantity"], "The fulfillment order line item quantity is invalid.", "INVALID_LINE_ITEM_QUANTITY");
    } else {
      wanted.set(line.id, item.quantity);
    }
  });
  return errors.any ? undefined : wanted;
}

/** Splits the fulfillment order: `held` stays, the rest goes to a new OPEN one, answered (undefined when nothing is left over). */
function splitOff(ctx: Context, order: Order, fulfillmentOrder: FulfillmentOrder, held: Map<number, number>, at: number): FulfillmentOrder | undefined {
  const rest: { lineItemId: number; quantity: number }[] = [];
  for (const line of fulfillmentOrder.lineItems) {
    const left = line.remainingQuantity - (held.get(line.id) ?? 0);
    if (left > 0) rest.push({ lineItemId: line.lineItemId, quantity: left });
  }
  if (rest.length === 0) return undefined;
  const kept: FulfillmentOrderLineItem[] = [];
  for (const line of fulfillmentOrder.lineItems) {
    const quantity = held.get(line.id) ?? 0;
    if (quantity === 0) continue;
    line.totalQuantity = quantity;
    line.remainingQuantity = quantity;
    kept.push(line);
  }
  fulfillmentOrder.lineItems.splice(0, fulfillmentOrder.lineItems.length, ...kept);
  return ctx.store.addFulfillmentOrder(order, rest, "OPEN", at);
}

function fulfillmentOrderHold(ctx: Context, args: { id: string; fulfillmentHold: HoldInput }) {
  const errors = new FulfillmentErrors();
  const none = { fulfillmentHold: null, fulfillmentOrder: null, remainingFulfillmentOrder: null };
  const fulfillmentOrder = findFulfillmentOrder(ctx, args.id);
  if (!fulfillmentOrder) {
    errors.add(["id"], "The fulfillment order could not be found.", "FULFILLMENT_ORDER_NOT_FOUND");
    return { ...none, userErrors: errors.list };
  }
  const input = args.fulfillmentHold;
  const handle = input.handle ?? "";
  const items = input.fulfillmentOrderLineItems ?? [];
  const own = fulfillmentOrder.holds.filter((h) => h.appId === ctx.appId);
  if (fulfillmentOrder.status !== "OPEN" && fulfillmentOrder.status !== "ON_HOLD") {
    errors.add(["id"], `The fulfillment order's status is ${fulfillmentOrder.status}: only an open or held fulfillment order can be placed on hold.`, null);
  } else if (handle.length > MAX_HANDLE_LENGTH) {
    errors.add(["fulfillmentHold", "handle"], `Handle is too long (maximum is ${MAX_HANDLE_LENGTH} characters).`, null);
  } else if (own.some((h) => h.handle === handle)) {
    errors.add(["fulfillmentHold", "handle"], "The handle provided for the fulfillment hold is already in use by this app for another hold on this fulfillment order.", "DUPLICATE_FULFILLMENT_HOLD_HANDLE");
  } else if (own.length >= MAX_HOLDS_PER_APP) {
    errors.add(["id"], `The maximum number of fulfillment holds for this fulfillment order has been reached for this app (${MAX_HOLDS_PER_APP}).`, "FULFILLMENT_ORDER_HOLD_LIMIT_REACHED");
  } else if (items.length > 0 && fulfillmentOrder.status === "ON_HOLD") {
    errors.add(["fulfillmentHold", "fulfillmentOrderLineItems"], "The fulfillment order is not in a splittable state.", "FULFILLMENT_ORDER_NOT_SPLITTABLE");
  }
  const held = errors.any || items.length === 0 ? undefined : heldQuantities(fulfillmentOrder, items, errors);
  if (errors.any) return { ...none, userErrors: errors.list };
  const at = ctx.store.now();
  const order = ctx.store.order(fulfillmentOrder.orderId);
  const remainingFulfillmentOrder = held && order ? (splitOff(ctx, order, fulfillmentOrder, held, at) ?? null) : null;
  const hold: FulfillmentHold = {
    kind: "FulfillmentHold",
    id: ctx.store.nextFulfillmentHoldId(),
    reason: input.reason,
    reasonNotes: input.reasonNotes ?? null,
    handle,
    appId: ctx.appId,
    createdAt: at,
  };
  fulfillmentOrder.holds.push(hold);
  fulfillmentOrder.status = "ON_HOLD";
  fulfillmentOrder.updatedAt = at;
  if (order) order.updatedAt = at;
  return { fulfillmentHold: hold, fulfillmentOrder, remainingFulfillmentOrder, userErrors: [] };
}

function fulfillmentOrderReleaseHold(ctx: Context, args: { id: string; holdIds?: string[] | null; externalId?: string | null }) {
  const errors = new FulfillmentErrors();
  const fulfillmentOrder = findFulfillmentOrder(ctx, args.id);
  if (!fulfillmentOrder) {
    errors.add(["id"], "The fulfillment order wasn't found.", "FULFILLMENT_ORDER_NOT_FOUND");
    return { fulfillmentOrder: null, userErrors: errors.list };
  }
  if (fulfillmentOrder.status !== "ON_HOLD") {
    errors.add(["id"], `The fulfillment order's status is ${fulfillmentOrder.status}: it is not on hold.`, null);
    return { fulfillmentOrder: null, userErrors: errors.list };
  }
  // Ids of holds on other fulfillment orders are passed over, as the platform does.
  const named = args.holdIds ? new Set(args.holdIds.map((id) => parseGid(id)).flatMap((p) => (p?.type === "FulfillmentHold" ? [p.id] : []))) : undefined;
  const releasing = fulfillmentOrder.holds.filter((h) => !named || named.has(h.id));
  // Without holdIds every hold goes; a named hold of another app is not this app's to release.
  if (named && releasing.some((h) => h.appId !== ctx.appId)) {
    errors.add(["holdIds"], "The app doesn't have access to release the fulfillment hold.", "INVALID_ACCESS");
    return { fulfillmentOrder: null, userErrors: errors.list };
  }
  const at = ctx.store.now();
  fulfillmentOrder.holds = fulfillmentOrder.holds.filter((h) => !releasing.includes(h));
  if (fulfillmentOrder.holds.length === 0) fulfillmentOrder.status = "OPEN";
  fulfillmentOrder.updatedAt = at;
  const order = ctx.store.order(fulfillmentOrder.orderId);
  if (order) order.updatedAt = at;
  return { fulfillmentOrder, userErrors: [] };
}

interface SplitInput {
  fulfillmentOrderId: string;
  fulfillmentOrderLineItems: { id: string; quantity: number }[];
}

/**
 * `fulfillmentOrderSplit`: each named fulfillment order keeps what was not named, and the named
 * quantities move to a new OPEN one (`remainingFulfillmentOrder`). All inputs are checked first:
 * one bad input refuses them all. Only an OPEN one is split here (the platform would make a
 * replacement for one it cannot split; the emulator refuses instead).
 */
function fulfillmentOrderSplit(ctx: Context, args: { fulfillmentOrderSplits: SplitInput[] }) {
  const errors = new FulfillmentErrors();
  const plans: { fulfillmentOrder: FulfillmentOrder; moved: Map<number, number> }[] = [];
  args.fulfillmentOrderSplits.forEach((split, i) => {
    const field = ["fulfillmentOrderSplits", String(i)];
    const fulfillmentOrder = findFulfillmentOrder(ctx, split.fulfillmentOrderId);
    if (!fulfillmentOrder) return errors.add([...field, "fulfillmentOrderId"], "The fulfillment order could not be found.", "FULFILLMENT_ORDER_NOT_FOUND");
    if (split.fulfillmentOrderLineItems.length === 0) return errors.add([...field, "fulfillmentOrderLineItems"], "The fulfillment order must have at least one line item input to split.", "NO_LINE_ITEMS_PROVIDED_TO_SPLIT");
    if (fulfillmentOrder.status !== "OPEN") return errors.add([...field, "fulfillmentOrderId"], `The fulfillment order's status is ${fulfillmentOrder.status}: only an open fulfillment order can be split.`, null);
    const moved = new Map<number, number>();
    split.fulfillmentOrderLineItems.forEach((item, j) => {
      const itemField = [...field, "fulfillmentOrderLineItems", String(j), "quantity"];
      const parsed = parseGid(item.id);
      const line = parsed?.type === "FulfillmentOrderLineItem" ? fulfillmentOrder.lineItems.find((l) => l.id === parsed.id) : undefined;
      if (item.quantity <= 0) errors.add(itemField, "The fulfillment order line item quantity must be greater than 0.", "GREATER_THAN");
      else if (!line || moved.has(line.id) || item.quantity > line.remainingQuantity) errors.add(itemField, "The fulfillment order line item quantity is invalid.", "INVALID_LINE_ITEM_QUANTITY");
      else moved.set(line.id, item.quantity);
    });
    const left = fulfillmentOrder.lineItems.reduce((sum, l) => sum + l.remainingQuantity - (moved.get(l.id) ?? 0), 0);
    if (moved.size > 0 && left === 0) errors.add([...field, "fulfillmentOrderLineItems"], "The fulfillment order line item quantity is invalid.", "INVALID_LINE_ITEM_QUANTITY");
    plans.push({ fulfillmentOrder, moved });
  });
  if (errors.any) return { fulfillmentOrderSplits: null, userErrors: errors.list };
  const at = ctx.store.now();
  const results = plans.map(({ fulfillmentOrder, moved }) => {
    const order = ctx.store.order(fulfillmentOrder.orderId);
    const kept = new Map<number, number>();
    for (const line of fulfillmentOrder.lineItems) {
      const rest = line.remainingQuantity - (moved.get(line.id) ?? 0);
      if (rest > 0) kept.set(line.id, rest);
    }
    // splitOff keeps the given quantities and moves the rest: keep what was not named.
    const remainingFulfillmentOrder = order ? splitOff(ctx, order, fulfillmentOrder, kept, at) : undefined;
    fulfillmentOrder.updatedAt = at;
    if (order) order.updatedAt = at;
    return { fulfillmentOrder, remainingFulfillmentOrder: remainingFulfillmentOrder ?? null, replacementFulfillmentOrder: null };
  });
  return { fulfillmentOrderSplits: results, userErrors: [] };
}

export const fulfillmentOrderResolvers: Resolvers = {
  Mutation: {
    fulfillmentOrderSplit: (_: unknown, args: { fulfillmentOrderSplits: SplitInput[] }, ctx: Context) => fulfillmentOrderSplit(ctx, args),
    fulfillmentOrderHold: (_: unknown, args: { id: string; fulfillmentHold: HoldInput }, ctx: Context) => fulfillmentOrderHold(ctx, args),
    fulfillmentOrderReleaseHold: (_: unknown, args: { id: string; holdIds?: string[] | null }, ctx: Context) => fulfillmentOrderReleaseHold(ctx, args),
  },
  Order: {
    fulfillmentOrders: (o: Order, args: ConnectionArgs) => paginate(byId(o.fulfillmentOrders), args),
  },
  FulfillmentOrder: {
    orderId: (f: FulfillmentOrder) => gid("Order", f.orderId),
    order: (f: FulfillmentOrder, _: unknown, ctx: Context) => ctx.store.order(f.orderId) ?? null,
    lineItems: (f: FulfillmentOrder, args: ConnectionArgs) => paginate(byId(f.lineItems), args),
    fulfillmentHolds: (f: FulfillmentOrder) => f.holds,
  },
  FulfillmentOrderLineItem: {
    lineItem: (l: FulfillmentOrderLineItem, _: unknown, ctx: Context) => {
      for (const order of ctx.store.orders) {
        const found = order.lineItems.find((item) => item.id === l.lineItemId);
        if (found) return found;
      }
      return null;
    },
  },
  FulfillmentHold: {
    displayReason: (h: FulfillmentHold) => REASON_TEXT[h.reason],
    heldByRequestingApp: (h: FulfillmentHold, _: unknown, ctx: Context) => h.appId === ctx.appId,
  },
};
