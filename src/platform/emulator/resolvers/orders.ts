import type { Context } from "../context.ts";
import { byId, paginate } from "../connection.ts";
import { gid } from "../ids.ts";
import type { Customer, LineItem, Order } from "../model.ts";
import { formatCents, moneyBag } from "../money.ts";
import type { ConnectionArgs, Resolvers } from "./types.ts";

export const orderResolvers: Resolvers = {
  Order: {
    displayFinancialStatus: (o: Order) => o.financialStatus.toUpperCase(),
    displayFulfillmentStatus: (o: Order) => (o.fulfillmentStatus === "fulfilled" ? "FULFILLED" : "UNFULFILLED"),
    totalPrice: (o: Order) => formatCents(o.totalCents),
    totalPriceSet: (o: Order) => moneyBag(o.totalCents, o.currencyCode),
    totalOutstandingSet: (o: Order) => moneyBag(o.outstandingCents, o.currencyCode),
    customer: (o: Order, _: unknown, ctx: Context) => (o.customerId === null ? null : (ctx.store.customer(o.customerId) ?? null)),
    lineItems: (o: Order, args: ConnectionArgs) => paginate(byId(o.lineItems), args),
    sourceName: (o: Order) => o.sourceName ?? "web",
    retailLocation: (o: Order, _: unknown, ctx: Context) => (o.retailLocationId === undefined || o.retailLocationId === null ? null : (ctx.store.location(o.retailLocationId) ?? null)),
    // The platform's checkout link for the rest of the order's payment: only while something is owed.
    paymentCollectionDetails: (o: Order, _: unknown, ctx: Context) => ({
      additionalPaymentCollectionUrl: o.outstandingCents > 0 && o.cancelledAt === null ? paymentCollectionUrl(ctx.shop.domain, o) : null,
    }),
  },
  LineItem: {
    variant: (l: LineItem, _: unknown, ctx: Context) => ctx.store.variant(l.variantId) ?? null,
    // LineItemSellingPlan: the plan's name as the line was sold (the plan's name now, here).
    sellingPlan: (l: LineItem, _: unknown, ctx: Context) =>
      l.sellingPlanId === null ? null : { name: ctx.store.sellingPlans.get(l.sellingPlanId)?.name ?? "", sellingPlanId: gid("SellingPlan", l.sellingPlanId) },
    originalUnitPrice: (l: LineItem) => formatCents(l.priceCents),
    // Orders are made in the shop's currency (admin/orders.ts), so their lines are too.
    originalUnitPriceSet: (l: LineItem, _: unknown, ctx: Context) => moneyBag(l.priceCents, ctx.shop.currencyCode),
  },
  Customer: {
    defaultEmailAddress: (c: Customer) => (c.email === null ? null : { emailAddress: c.email }),
    defaultPhoneNumber: (c: Customer) => (c.phone === null ? null : { phoneNumber: c.phone }),
  },
};

/** A stable link per order, shaped like the platform's invoice links (the key is not a secret here). */
export function paymentCollectionUrl(domain: string, order: Order): string {
  return `https://${domain}/orders/${order.id}/pay?key=${(order.id * 2654435761 % 4294967296).toString(16)}`;
}

