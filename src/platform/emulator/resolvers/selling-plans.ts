import type { Context } from "../context.ts";
import { byId, paginate } from "../connection.ts";
import type { BillingPolicy, ChargeValue, PricingPolicy, SellingPlan, SellingPlanGroup, Variant } from "../model.ts";
import type { ConnectionArgs, Resolvers } from "./types.ts";

function plansOf(ctx: Context, group: SellingPlanGroup): SellingPlan[] {
  return group.planIds.map((id) => ctx.store.sellingPlans.get(id)).filter((p): p is SellingPlan => p !== undefined);
}

/**
 * A charge or adjustment value as the platform's unions answer it: a percentage, or a fixed
 * amount as MoneyV2 in the shop's currency.
 */
function valueOf(value: ChargeValue, percentageType: string, ctx: Context): Record<string, unknown> {
  if (value.fixedValue !== null) return { kind: "MoneyV2", amount: value.fixedValue, currencyCode: ctx.shop.currencyCode };
  return { kind: percentageType, percentage: value.percentage ?? 0 };
}

export const sellingPlanResolvers: Resolvers = {
  // The plans the emulator makes are fixed ones (a preorder or try-before-you-buy): the unions' fixed members.
  SellingPlan: {
    billingPolicy: (p: SellingPlan) => (p.billingPolicy === null ? null : { kind: "SellingPlanFixedBillingPolicy", ...p.billingPolicy }),
    deliveryPolicy: (p: SellingPlan) =>
      p.deliveryPolicy === null ? null : { kind: "SellingPlanFixedDeliveryPolicy", ...p.deliveryPolicy, anchors: [], cutoff: null, intent: "FULFILLMENT_BEGIN", preAnchorBehavior: "ASAP" },
    pricingPolicies: (p: SellingPlan) => p.pricingPolicies.map((policy) => ({ kind: "SellingPlanFixedPricingPolicy", ...policy })),
  },
  SellingPlanCheckoutCharge: {
    value: (charge: BillingPolicy["checkoutCharge"], _: unknown, ctx: Context) => valueOf(charge.value, "SellingPlanCheckoutChargePercentageValue", ctx),
  },
  SellingPlanFixedPricingPolicy: {
    adjustmentValue: (policy: PricingPolicy, _: unknown, ctx: Context) => valueOf(policy.adjustmentValue, "SellingPlanPricingPolicyPercentageValue", ctx),
  },
  SellingPlanGroup: {
    sellingPlans: (g: SellingPlanGroup, args: ConnectionArgs, ctx: Context) => paginate(byId(plansOf(ctx, g)), args),
    productVariants: (g: SellingPlanGroup, args: ConnectionArgs, ctx: Context) => {
      const variants = [...g.variantIds]
        .sort((a, b) => a - b)
        .map((id) => ctx.store.variant(id))
        .filter((v): v is Variant => v !== undefined);
      return paginate(byId(variants), args);
    },
    productVariantsCount: (g: SellingPlanGroup) => ({ count: g.variantIds.size, precision: "EXACT" }),
  },
};
