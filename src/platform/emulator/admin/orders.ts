import type { Context } from "../context.ts";
import { legacyIdOf } from "../ids.ts";
import type { Attribute, Customer, LineItem, Order } from "../model.ts";
import { splitTags } from "../tags.ts";
import type { OrderBody } from "./bodies.ts";
import { AdminError } from "./errors.ts";

function cents(value: string | number): number {
  return Math.round(Number(value) * 100);
}

function sellingPlanFor(ctx: Context, value: string | number | undefined, variantId: number, line: number): number | null {
  if (value === undefined) return null;
  const id = legacyIdOf("SellingPlan", value);
  const plan = id === undefined ? undefined : ctx.store.sellingPlans.get(id);
  if (!plan) throw new AdminError(422, `line_items[${line}]: selling plan ${value} does not exist`);
  const group = ctx.store.sellingPlanGroups.get(plan.groupId);
  // Checkout offers a plan only on the variants of its group.
  if (!group?.variantIds.has(variantId)) {
    throw new AdminError(422, `line_items[${line}]: variant ${variantId} is not in the group of selling plan ${plan.id}`);
  }
  return plan.id;
}

/**
 * What checkout charges for a line now, as its selling plan's billing policy says: the checkout
 * charge (a percentage of the line's price, or a fixed price per unit) of a plan with one, the
 * whole price of a line on no plan (or a plan without a fixed billing policy). In cents.
 */
export function checkoutChargeCents(ctx: Context, line: { priceCents: number; quantity: number; sellingPlanId: number | null }): number {
  const total = line.priceCents * line.quantity;
  const plan = line.sellingPlanId === null ? undefined : ctx.store.sellingPlans.get(line.sellingPlanId);
  const charge = plan?.billingPolicy?.checkoutCharge;
  if (!charge) return total;
  if (charge.type === "PERCENTAGE" && charge.value.percentage !== null) return Math.min(total, Math.round((total * charge.value.percentage) / 100));
  if (charge.type === "PRICE" && charge.value.fixedValue !== null) return Math.min(total, cents(charge.value.fixedValue) * line.quantity);
  return total;
}

function customerFor(ctx: Context, body: OrderBody): Customer | undefined {
  if (body.customer_id !== undefined) {
    const id = legacyIdOf("Customer", body.customer_id);
    const customer = id === undefined ? undefined : ctx.store.customer(id);
    if (!customer) throw new AdminError(422, `customer ${body.customer_id} does not exist`);
    return customer;
  }
  if (!body.email) return undefined;
  // Like checkout: an order by a new e-mail address makes a customer.
  return ctx.store.customerByEmail(body.email) ?? ctx.store.addCustomer({ email: body.email, phone: null, firstName: null });
}

/** What a completed draft order carries to its order beside the checkout fields. */
export interface OrderExtras {
  customAttributes?: Attribute[];
  poNumber?: string | null;
  paymentGatewayNames?: string[];
  /** Where the order is placed (Order.sourceName); unset: `web`, the online store's checkout. */
  sourceName?: string;
  /** The point of sale's location of a `pos` order. */
  retailLocationId?: number | null;
}

/** The active location, stocking goods, that a point of sale's order is placed at. */
export function retailLocationFor(ctx: Context, value: string | number): number {
  const id = legacyIdOf("Location", value);
  const location = id === undefined ? undefined : ctx.store.location(id);
  if (!location) throw new AdminError(422, `location ${value} does not exist`);
  if (!location.isActive || !location.levels) throw new AdminError(422, `location ${location.name} is not active and stocks nothing`);
  return location.id;
}

/**
 * Creates an order as checkout (or a completed draft order, or the point of sale) would; sends
 * orders/create, and orders/paid when it is paid. The body's source_name and location_id (the
 * admin route's) stand in for the extras' when those name none.
 */
export function createOrder(ctx: Context, body: OrderBody, extras: OrderExtras = {}): { order: Order; webhookIds: string[] } {
  const { store } = ctx;
  const sourceName = extras.sourceName ?? body.source_name ?? "web";
  const retailLocationId = extras.retailLocationId ?? (body.location_id === undefined ? null : retailLocationFor(ctx, body.location_id));
  if (sourceName === "pos" && retailLocationId === null) throw new AdminError(422, "an order of the point of sale (source_name pos) needs its location_id");
  const lineItems: LineItem[] = body.line_items.map((line, i) => {
    const variantId = legacyIdOf("ProductVariant", line.variant_id);
    const variant = variantId === undefined ? undefined : store.variant(variantId);
    if (!variant) throw new AdminError(422, `line_items[${i}]: variant ${line.variant_id} does not exist`);
    return {
      kind: "LineItem",
      id: 0,
      variantId: variant.id,
      productId: variant.productId,
      quantity: line.quantity,
      priceCents: line.price === undefined ? variant.priceCents : cents(line.price),
      sellingPlanId: sellingPlanFor(ctx, line.selling_plan_id ?? body.selling_plan_id, variant.id, i),
      properties: Object.entries(line.properties ?? {}).map(([name, value]) => ({ name, value })),
    };
  });
  const customer = customerFor(ctx, body);
  const totalCents = lineItems.reduce((sum, l) => sum + l.priceCents * l.quantity, 0);
  const paidCents =
    body.financial_status === "paid"
      ? totalCents
      : body.financial_status === "pending"
        ? 0
        : Math.min(totalCents, body.amount_paid === undefined ? Math.round(totalCents / 2) : cents(body.amount_paid));
  const at = store.now();
  const id = store.nextOrderId();
  const order: Order = {
    kind: "Order",
    id,
    name: `#${1000 + store.orders.length + 1}`,
    email: body.email ?? customer?.email ?? null,
    customerId: customer?.id ?? null,
    createdAt: at,
    updatedAt: at,
    cancelledAt: null,
    financialStatus: body.financial_status,
    fulfillmentStatus: null,
    currencyCode: ctx.shop.currencyCode,
    totalCents,
    outstandingCents: totalCents - paidCents,
    tags: body.tags === undefined ? [] : splitTags(body.tags),
    // Line item ids are taken only once the order is valid, so a refused order uses none.
    lineItems: lineItems.map((l) => ({ ...l, id: store.nextLineItemId() })),
    fulfillmentOrders: [],
    ...extras,
    sourceName,
    retailLocationId,
  };
  // As the platform: the new order's items in one fulfillment order, open, all of each line remaining.
  store.addFulfillmentOrder(order, order.lineItems.map((l) => ({ lineItemId: l.id, quantity: l.quantity })), "OPEN", at);
  store.orders.push(order);
  const webhookIds = [ctx.events.orderEvent("orders/create", order)];
  if (order.financialStatus === "paid") webhookIds.push(ctx.events.orderEvent("orders/paid", order));
  return { order, webhookIds: webhookIds.filter((w): w is string => w !== null) };
}

export type OrderAction = "cancel" | "fulfill" | "pay";

/** Cancels, fulfils or pays an order and sends the matching webhook. */
export function changeOrder(ctx: Context, orderId: string, action: OrderAction): { order: Order; webhookIds: string[] } {
  const id = legacyIdOf("Order", orderId);
  const order = id === undefined ? undefined : ctx.store.order(id);
  if (!order) throw new AdminError(404, `order ${orderId} does not exist`);
  if (order.cancelledAt !== null) throw new AdminError(422, `order ${order.name} is cancelled`);
  const at = ctx.store.now();
  let topic: "orders/cancelled" | "orders/fulfilled" | "orders/paid";
  if (action === "cancel") {
    order.cancelledAt = at;
    for (const f of order.fulfillmentOrders) {
      if (f.status === "CLOSED" || f.status === "CANCELLED") continue;
      f.status = "CANCELLED";
      f.holds = [];
      f.updatedAt = at;
    }
    topic = "orders/cancelled";
  } else if (action === "fulfill") {
    if (order.fulfillmentStatus === "fulfilled") throw new AdminError(422, `order ${order.name} is already fulfilled`);
    // A fulfillment order on hold cannot be fulfilled until its holds are released.
    if (order.fulfillmentOrders.some((f) => f.status === "ON_HOLD")) throw new AdminError(422, `order ${order.name} has a fulfillment order on hold`);
    order.fulfillmentStatus = "fulfilled";
    for (const f of order.fulfillmentOrders) {
      if (f.status !== "OPEN") continue;
      f.status = "CLOSED";
      for (const line of f.lineItems) line.remainingQuantity = 0;
      f.updatedAt = at;
    }
    topic = "orders/fulfilled";
  } else {
    if (order.financialStatus === "paid") throw new AdminError(422, `order ${order.name} is already paid`);
    order.financialStatus = "paid";
    order.outstandingCents = 0;
    topic = "orders/paid";
  }
  order.updatedAt = at;
  const webhookId = ctx.events.orderEvent(topic, order);
  return { order, webhookIds: webhookId === null ? [] : [webhookId] };
}
