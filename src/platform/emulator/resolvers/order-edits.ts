import type { Context } from "../context.ts";
import { byId, paginate } from "../connection.ts";
import { parseGid } from "../ids.ts";
import type { LineItem, Order } from "../model.ts";
import type { Store } from "../store.ts";
import type { ConnectionArgs, Resolvers } from "./types.ts";

/**
 * Order edits as the platform's Admin API has them, for the quantity changes the preorder split
 * needs: `orderEditBegin` opens a CalculatedOrder on an order, `orderEditSetQuantity` stages a
 * line item's new quantity (0 removes it; the line stays with nothing left), `orderEditCommit`
 * applies the staged quantities: each line item's currentQuantity goes down (quantity stays what
 * was ordered), the removed units leave the order's open fulfillment orders, the order's total and
 * outstanding amount go down by their price, and orders/edited and orders/updated are sent.
 * Raising a quantity (or adding items) is not emulated: it is refused.
 *
 * Edits live beside the store; a state file keeps them (savedOrderEdits, restoreOrderEdits), so an
 * edit begun before a restart can still be committed and its id is never handed out again.
 */

export interface CalculatedOrder {
  readonly kind: "CalculatedOrder";
  readonly id: number;
  readonly orderId: number;
  committed: boolean;
  /** Staged quantities by line item id. */
  readonly staged: Map<number, number>;
}

/** One line of a calculated order: the order's line item with the staged quantity. */
interface CalculatedLineItem {
  /** The line item's number: the schema's default resolver makes it gid CalculatedLineItem. */
  readonly id: number;
  readonly quantity: number;
  readonly editableQuantity: number;
  readonly variantId: number;
}

interface EditState {
  nextId: number;
  readonly edits: Map<number, CalculatedOrder>;
}

const states = new WeakMap<Store, EditState>();

function stateOf(store: Store): EditState {
  let state = states.get(store);
  if (!state) {
    state = { nextId: 1, edits: new Map() };
    states.set(store, state);
  }
  return state;
}

/** What a state file keeps of the store's order edits (staged quantities as [line item id, quantity]). */
export interface SavedOrderEdits {
  nextId: number;
  edits: (Omit<CalculatedOrder, "staged"> & { staged: [number, number][] })[];
}

export function savedOrderEdits(store: Store): SavedOrderEdits {
  const state = stateOf(store);
  return { nextId: state.nextId, edits: [...state.edits.values()].map((e) => ({ ...e, staged: [...e.staged] })) };
}

/** Puts saved edits beside a restored store; `skipIds` ids are skipped (those a crash may have lost). */
export function restoreOrderEdits(store: Store, saved: SavedOrderEdits, skipIds = 0): void {
  states.set(store, { nextId: saved.nextId + skipIds, edits: new Map(saved.edits.map((e) => [e.id, { ...e, staged: new Map(e.staged) }])) });
}

export const currentQuantity = (line: LineItem) => line.currentQuantity ?? line.quantity;

function calculatedLine(edit: CalculatedOrder, line: LineItem): CalculatedLineItem {
  const quantity = edit.staged.get(line.id) ?? currentQuantity(line);
  return { id: line.id, quantity, editableQuantity: quantity, variantId: line.variantId };
}

function findOrder(ctx: Context, id: string): Order | undefined {
  const parsed = parseGid(id);
  return parsed?.type === "Order" ? ctx.store.order(parsed.id) : undefined;
}

function findEdit(ctx: Context, id: string): CalculatedOrder | undefined {
  const parsed = parseGid(id);
  return parsed?.type === "CalculatedOrder" ? stateOf(ctx.store).edits.get(parsed.id) : undefined;
}

const error = (field: string[], message: string) => ({ field, message });

function orderEditBegin(ctx: Context, args: { id: string }) {
  const order = findOrder(ctx, args.id);
  if (!order) return { calculatedOrder: null, userErrors: [error(["id"], "The order does not exist.")] };
  if (order.cancelledAt !== null) return { calculatedOrder: null, userErrors: [error(["id"], "The order cannot be edited: it is cancelled.")] };
  const state = stateOf(ctx.store);
  const edit: CalculatedOrder = { kind: "CalculatedOrder", id: state.nextId++, orderId: order.id, committed: false, staged: new Map() };
  state.edits.set(edit.id, edit);
  return { calculatedOrder: edit, userErrors: [] };
}

function orderEditSetQuantity(ctx: Context, args: { id: string; lineItemId: string; quantity: number; restock?: boolean | null }) {
  const none = { calculatedLineItem: null, calculatedOrder: null };
  const edit = findEdit(ctx, args.id);
  if (!edit || edit.committed) return { ...none, userErrors: [error(["id"], "The calculated order does not exist or was already committed.")] };
  const order = ctx.store.order(edit.orderId);
  const parsed = parseGid(args.lineItemId);
  const line = parsed?.type === "CalculatedLineItem" ? order?.lineItems.find((l) => l.id === parsed.id) : undefined;
  if (!line) return { ...none, userErrors: [error(["lineItemId"], "The line item does not exist on the calculated order.")] };
  if (args.quantity < 0) return { ...none, userErrors: [error(["quantity"], "Quantity must be greater than or equal to 0.")] };
  if (args.quantity > currentQuantity(line)) return { ...none, userErrors: [error(["quantity"], "The emulator only lowers quantities.")] };
  edit.staged.set(line.id, args.quantity);
  return { calculatedLineItem: calculatedLine(edit, line), calculatedOrder: edit, userErrors: [] };
}

/** Takes `count` units of the line item out of the order's open fulfillment orders (the unfulfilled ones first held them). */
function removeFromFulfillmentOrders(order: Order, lineItemId: number, count: number): void {
  let left = count;
  for (const fulfillmentOrder of order.fulfillmentOrders) {
    if (left === 0) break;
    if (fulfillmentOrder.status === "CLOSED" || fulfillmentOrder.status === "CANCELLED") continue;
    for (const line of fulfillmentOrder.lineItems) {
      if (line.lineItemId !== lineItemId || left === 0) continue;
      const taken = Math.min(left, line.remainingQuantity);
      line.remainingQuantity -= taken;
      line.totalQuantity -= taken;
      left -= taken;
    }
    const emptied = fulfillmentOrder.lineItems.every((l) => l.totalQuantity === 0);
    // A fulfillment order left with nothing to fulfil is closed, as the platform does after an edit removes its items.
    if (emptied) {
      fulfillmentOrder.status = "CLOSED";
      fulfillmentOrder.holds = [];
    }
  }
}

function orderEditCommit(ctx: Context, args: { id: string; notifyCustomer?: boolean | null; staffNote?: string | null }) {
  const edit = findEdit(ctx, args.id);
  if (!edit || edit.committed) return { order: null, userErrors: [error(["id"], "The calculated order does not exist or was already committed.")] };
  const order = ctx.store.order(edit.orderId);
  if (!order || order.cancelledAt !== null) return { order: null, userErrors: [error(["id"], "The order cannot be edited.")] };
  const at = ctx.store.now();
  const removals: { lineItemId: number; delta: number }[] = [];
  let removedCents = 0;
  for (const [lineItemId, quantity] of edit.staged) {
    const line = order.lineItems.find((l) => l.id === lineItemId);
    if (!line) continue;
    const delta = currentQuantity(line) - quantity;
    if (delta <= 0) continue;
    line.currentQuantity = quantity;
    removeFromFulfillmentOrders(order, line.id, delta);
    removals.push({ lineItemId: line.id, delta });
    removedCents += delta * line.priceCents;
  }
  edit.committed = true;
  stateOf(ctx.store).edits.delete(edit.id);
  if (removals.length > 0) {
    // The order's total is read-only on the record: replaced by an edited copy of the same object's fields.
    Object.assign(order, { totalCents: Math.max(0, order.totalCents - removedCents) });
    order.outstandingCents = Math.max(0, order.outstandingCents - removedCents);
    order.updatedAt = at;
    ctx.events.orderEdited({ id: edit.id, orderId: order.id, createdAt: at, removals });
    ctx.events.orderEvent("orders/updated", order);
  }
  return { order, userErrors: [] };
}

export const orderEditResolvers: Resolvers = {
  Mutation: {
    orderEditBegin: (_: unknown, args: { id: string }, ctx: Context) => orderEditBegin(ctx, args),
    orderEditSetQuantity: (_: unknown, args: { id: string; lineItemId: string; quantity: number; restock?: boolean | null }, ctx: Context) => orderEditSetQuantity(ctx, args),
    orderEditCommit: (_: unknown, args: { id: string }, ctx: Context) => orderEditCommit(ctx, args),
  },
  CalculatedOrder: {
    originalOrder: (edit: CalculatedOrder, _: unknown, ctx: Context) => ctx.store.order(edit.orderId) ?? null,
    lineItems: (edit: CalculatedOrder, args: ConnectionArgs, ctx: Context) => {
      const order = ctx.store.order(edit.orderId);
      return paginate(byId((order?.lineItems ?? []).map((line) => calculatedLine(edit, line))), args);
    },
  },
  CalculatedLineItem: {
    variant: (line: { variantId: number }, _: unknown, ctx: Context) => ctx.store.variant(line.variantId) ?? null,
  },
  LineItem: {
    currentQuantity: (line: LineItem) => currentQuantity(line),
  },
};
