import type { Context } from "../context.ts";
import { byId, paginate } from "../connection.ts";
import type { SellingPlan, SellingPlanGroup, Variant } from "../model.ts";
import type { ConnectionArgs, Resolvers } from "./types.ts";

function plansOf(ctx: Context, group: SellingPlanGroup): SellingPlan[] {
  return group.planIds.map((id) => ctx.store.sellingPlans.get(id)).filter((p): p is SellingPlan => p !== undefined);
}

export const sellingPlanResolvers: Resolvers = {
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
