import type { Context } from "../context.ts";
import { byId, paginate } from "../connection.ts";
import { gid } from "../ids.ts";
import type { LineItem, Order } from "../model.ts";
import { formatCents } from "../money.ts";
import type { ConnectionArgs, Resolvers } from "./types.ts";

export const orderResolvers: Resolvers = {
  Order: {
    displayFinancialStatus: (o: Order) => o.financialStatus.toUpperCase(),
    displayFulfillmentStatus: (o: Order) => (o.fulfillmentStatus === "fulfilled" ? "FULFILLED" : "UNFULFILLED"),
    totalPrice: (o: Order) => formatCents(o.totalCents),
    totalOutstanding: (o: Order) => formatCents(o.outstandingCents),
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
    sellingPlanId: (l: LineItem) => (l.sellingPlanId === null ? null : gid("SellingPlan", l.sellingPlanId)),
    originalUnitPrice: (l: LineItem) => formatCents(l.priceCents),
  },
};

/** A stable link per order, shaped like the platform's invoice links (the key is not a secret here). */
export function paymentCollectionUrl(domain: string, order: Order): string {
  return `https://${domain}/orders/${order.id}/pay?key=${(order.id * 2654435761 % 4294967296).toString(16)}`;
}
