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
  },
  LineItem: {
    variant: (l: LineItem, _: unknown, ctx: Context) => ctx.store.variant(l.variantId) ?? null,
    sellingPlanId: (l: LineItem) => (l.sellingPlanId === null ? null : gid("SellingPlan", l.sellingPlanId)),
    originalUnitPrice: (l: LineItem) => formatCents(l.priceCents),
  },
};
