import type { SellingPlan, SellingPlanGroup, Variant } from "../../src/platform/emulator/model.ts";
import type { Store } from "../../src/platform/emulator/store.ts";

/** A PRE_ORDER selling plan group holding the variant, made directly in the emulator's store (as the app's sync would); answers the plan's id. */
export function storePlanFor(store: Store, variant: Variant, merchantCode = "preorder"): number {
  const group: SellingPlanGroup = {
    kind: "SellingPlanGroup",
    id: store.nextSellingPlanGroupId(),
    name: "Preorder",
    merchantCode,
    description: null,
    options: ["Preorder"],
    position: null,
    planIds: [],
    variantIds: new Set([variant.id]),
    productIds: new Set([variant.productId]),
  };
  const plan: SellingPlan = {
    kind: "SellingPlan",
    id: store.nextSellingPlanId(),
    groupId: group.id,
    name: "Preorder",
    description: null,
    options: ["Preorder"],
    position: null,
    category: "PRE_ORDER",
    billingPolicy: null,
    deliveryPolicy: null,
    inventoryPolicy: null,
    pricingPolicies: [],
  };
  group.planIds.push(plan.id);
  store.sellingPlanGroups.set(group.id, group);
  store.sellingPlans.set(plan.id, plan);
  return plan.id;
}
