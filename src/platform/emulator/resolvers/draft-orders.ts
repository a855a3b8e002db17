import { createOrder } from "../admin/orders.ts";
import { AdminError } from "../admin/errors.ts";
import type { Context } from "../context.ts";
import { gid, parseGid } from "../ids.ts";
import type { Attribute } from "../model.ts";
import { formatCents } from "../money.ts";
import type { Store } from "../store.ts";
import { byId, paginate } from "../connection.ts";
import { type FieldFilter, compileSearch } from "../search.ts";
import type { Resolvers, SearchArgs } from "./types.ts";

/**
 * Draft orders as the platform's Admin API has them, for moving preorder items to an order of
 * their own: `draftOrderCreate` makes an OPEN draft (`#D1`, `#D2`...) of variants and quantities
 * (each at its priceOverride when given, else its catalog price)
 * with tags, custom attributes and a PO number; `draftOrderComplete` turns it into an order the
 * way checkout does (createOrder: one OPEN fulfillment order, orders/create and, when paid,
 * orders/paid), paid through the named payment gateway or pending. The order keeps the draft's
 * tags, custom attributes (the webhook's note_attributes) and PO number; the draft is COMPLETED
 * and names its order. Completing a completed draft is refused.
 *
 * `draftOrders` lists them, filtered by `status:` and `tag:`. Drafts live beside the store; a
 * state file keeps them (savedDraftOrders, restoreDraftOrders).
 */

/** The store's payment gateways (the platform's PaymentGateway ids), by id. */
export const PAYMENT_GATEWAYS: ReadonlyMap<number, string> = new Map([
  [1, "manual"],
  [2, "bogus"],
]);

export interface DraftLine {
  readonly variantId: number;
  readonly quantity: number;
  /** The line's priceOverride (cents): used in place of the variant's catalog price. */
  readonly priceCents: number | null;
}

export interface DraftOrder {
  readonly kind: "DraftOrder";
  readonly id: number;
  readonly name: string;
  status: "OPEN" | "COMPLETED";
  readonly email: string | null;
  readonly customerId: number | null;
  readonly lines: readonly DraftLine[];
  readonly tags: string[];
  readonly poNumber: string | null;
  readonly customAttributes: Attribute[];
  orderId: number | null;
}

interface DraftState {
  nextId: number;
  readonly drafts: Map<number, DraftOrder>;
}

const states = new WeakMap<Store, DraftState>();

function stateOf(store: Store): DraftState {
  let state = states.get(store);
  if (!state) {
    state = { nextId: 1, drafts: new Map() };
    states.set(store, state);
  }
  return state;
}

interface DraftOrderInput {
  email?: string | null;
  /** Deprecated on the platform for purchasingEntity.customerId; both are taken. */
  customerId?: string | null;
  purchasingEntity?: { customerId?: string | null } | null;
  lineItems?: { variantId?: string | null; quantity: number; customAttributes?: { key: string; value: string }[] | null; priceOverride?: { amount: string; currencyCode: string } | null }[] | null;
  tags?: string[] | null;
  note?: string | null;
  poNumber?: string | null;
  customAttributes?: { key: string; value: string }[] | null;
}

const error = (field: string[] | null, message: string) => ({ field, message });

/** The draftOrders search fields the emulator knows (the platform's: status, tag, among others). */
const draftFields: Record<string, FieldFilter<DraftOrder>> = {
  status: { kind: "text", get: (d) => d.status },
  tag: { kind: "tags", get: (d) => d.tags },
};

/** The store's draft orders, oldest first (tests look at what a split left behind). */
export function draftOrdersOf(store: Store): DraftOrder[] {
  return [...stateOf(store).drafts.values()];
}

/** What a state file keeps of the store's drafts: all of them, and the next id to hand out. */
export interface SavedDraftOrders {
  nextId: number;
  drafts: DraftOrder[];
}

export function savedDraftOrders(store: Store): SavedDraftOrders {
  const state = stateOf(store);
  return { nextId: state.nextId, drafts: [...state.drafts.values()] };
}

/** Puts saved drafts beside a restored store; `skipIds` ids are skipped (those a crash may have lost). */
export function restoreDraftOrders(store: Store, saved: SavedDraftOrders, skipIds = 0): void {
  states.set(store, { nextId: saved.nextId + skipIds, drafts: new Map(saved.drafts.map((d) => [d.id, d])) });
}

function draftOrderCreate(ctx: Context, args: { input: DraftOrderInput }) {
  const input = args.input;
  const lines: DraftLine[] = [];
  const errors: { field: string[] | null; message: string }[] = [];
  (input.lineItems ?? []).forEach((item, i) => {
    const parsed = item.variantId ? parseGid(item.variantId) : undefined;
    const variant = parsed?.type === "ProductVariant" ? ctx.store.variant(parsed.id) : undefined;
    // The platform's messages (draftOrderCreate captured): an unknown variant and a negative price name no field.
    if (!variant) errors.push(error(null, `Product with ID ${parsed?.id ?? item.variantId ?? ""} is no longer available.`));
    else if (item.quantity <= 0) errors.push(error(["lineItems", String(i), "quantity"], "Quantity must be greater than or equal to 1"));
    else if (item.priceOverride && Number(item.priceOverride.amount) < 0) errors.push(error(null, "Cannot send negative price for line_item"));
    else if (item.priceOverride && !/^\d+(\.\d{1,2})?$/.test(item.priceOverride.amount)) errors.push(error(["lineItems", String(i), "priceOverride", "amount"], "Amount is invalid."));
    else if (item.priceOverride && item.priceOverride.currencyCode !== ctx.shop.currencyCode) {
      // The platform would convert it at its rates; the emulator has none.
      errors.push(error(["lineItems", String(i), "priceOverride", "currencyCode"], `Currency must be the draft order's currency (${ctx.shop.currencyCode}).`));
    } else lines.push({ variantId: variant.id, quantity: item.quantity, priceCents: item.priceOverride ? Math.round(Number(item.priceOverride.amount) * 100) : null });
  });
  if (errors.length === 0 && lines.length === 0) errors.push(error(null, "Add at least 1 product"));
  const customerId = input.purchasingEntity?.customerId ?? input.customerId;
  const customer = customerId ? parseGid(customerId) : undefined;
  if (customerId && (customer?.type !== "Customer" || !ctx.store.customer(customer.id))) {
    errors.push(error(input.purchasingEntity?.customerId ? ["purchasingEntity", "customerId"] : ["customerId"], "Customer does not exist."));
  }
  if (errors.length > 0) return { draftOrder: null, userErrors: errors };
  const state = stateOf(ctx.store);
  const id = state.nextId++;
  const draft: DraftOrder = {
    kind: "DraftOrder",
    id,
    name: `#D${id}`,
    status: "OPEN",
    email: input.email ?? null,
    customerId: customer?.id ?? null,
    lines,
    tags: [...new Set((input.tags ?? []).map((t) => t.trim()).filter((t) => t.length > 0))],
    poNumber: input.poNumber ?? null,
    customAttributes: (input.customAttributes ?? []).map((a) => ({ key: a.key, value: a.value })),
    orderId: null,
  };
  state.drafts.set(id, draft);
  return { draftOrder: draft, userErrors: [] };
}

function findDraft(ctx: Context, id: string): DraftOrder | undefined {
  const parsed = parseGid(id);
  return parsed?.type === "DraftOrder" ? stateOf(ctx.store).drafts.get(parsed.id) : undefined;
}

function draftOrderComplete(ctx: Context, args: { id: string; paymentGatewayId?: string | null; paymentPending?: boolean | null; sourceName?: string | null }) {
  const draft = findDraft(ctx, args.id);
  if (!draft) return { draftOrder: null, userErrors: [error(["id"], "Draft order does not exist.")] };
  if (draft.status === "COMPLETED") return { draftOrder: null, userErrors: [error(null, "This order has been paid")] };
  let gateway = "manual";
  if (args.paymentGatewayId) {
    const parsed = parseGid(args.paymentGatewayId);
    const named = parsed?.type === "PaymentGateway" ? PAYMENT_GATEWAYS.get(parsed.id) : undefined;
    if (!named) return { draftOrder: null, userErrors: [error(null, "Invalid payment gateway")] };
    gateway = named;
  }
  try {
    const { order } = createOrder(
      ctx,
      {
        line_items: draft.lines.map((l) => ({ variant_id: l.variantId, quantity: l.quantity, ...(l.priceCents === null ? {} : { price: formatCents(l.priceCents) }) })),
        ...(draft.customerId === null ? {} : { customer_id: draft.customerId }),
        ...(draft.email === null ? {} : { email: draft.email }),
        financial_status: args.paymentPending ? "pending" : "paid",
        tags: draft.tags,
      },
      // A completed draft's order is sourced shopify_draft_order unless the call names another source.
      { customAttributes: draft.customAttributes, poNumber: draft.poNumber, paymentGatewayNames: [gateway], sourceName: args.sourceName ?? "shopify_draft_order" },
    );
    draft.status = "COMPLETED";
    draft.orderId = order.id;
  } catch (e) {
    if (e instanceof AdminError) return { draftOrder: null, userErrors: [error(["id"], e.message)] };
    throw e;
  }
  return { draftOrder: draft, userErrors: [] };
}

export const draftOrderResolvers: Resolvers = {
  QueryRoot: {
    draftOrder: (_: unknown, args: { id: string }, ctx: Context) => findDraft(ctx, args.id) ?? null,
    draftOrders: (_: unknown, args: SearchArgs, ctx: Context) =>
      paginate(byId([...stateOf(ctx.store).drafts.values()]), args, compileSearch(args.query, draftFields)),
  },
  Mutation: {
    draftOrderCreate: (_: unknown, args: { input: DraftOrderInput }, ctx: Context) => draftOrderCreate(ctx, args),
    draftOrderComplete: (_: unknown, args: { id: string; paymentGatewayId?: string | null; paymentPending?: boolean | null }, ctx: Context) => draftOrderComplete(ctx, args),
  },
  DraftOrder: {
    order: (draft: DraftOrder, _: unknown, ctx: Context) => (draft.orderId === null ? null : (ctx.store.order(draft.orderId) ?? null)),
    totalPrice: (draft: DraftOrder, _: unknown, ctx: Context) => formatCents(draft.lines.reduce((sum, l) => sum + l.quantity * (l.priceCents ?? ctx.store.variant(l.variantId)?.priceCents ?? 0), 0)),
  },
  Order: {
    customAttributes: (o: { customAttributes?: Attribute[] }) => o.customAttributes ?? [],
    poNumber: (o: { poNumber?: string | null }) => o.poNumber ?? null,
    paymentGatewayNames: (o: { paymentGatewayNames?: string[] }) => o.paymentGatewayNames ?? [],
  },
};

/** The gid of a gateway of the emulator's store, for tests and docs. */
export const paymentGatewayGid = (id: number) => gid("PaymentGateway", id);
