/**
 * Inputs for selling plan groups, as the platform's Admin API models them (SellingPlanGroupInput in admin-2026-07.graphql).
 * A preorder offer is one group with a plan of category PRE_ORDER per enabled payment option
 * (decision 0212): a fixed billing policy (all at checkout, or a deposit and the balance later),
 * a fixed delivery policy and an inventory policy.
 */
export type SellingPlanCategory = "PRE_ORDER" | "TRY_BEFORE_YOU_BUY" | "SUBSCRIPTION" | "OTHER";
export type SellingPlanCheckoutChargeType = "PERCENTAGE" | "PRICE";
export type SellingPlanRemainingBalanceChargeTrigger = "NO_REMAINING_BALANCE" | "EXACT_TIME" | "TIME_AFTER_CHECKOUT";
export type SellingPlanFulfillmentTrigger = "ANCHOR" | "ASAP" | "EXACT_TIME" | "UNKNOWN";
type SellingPlanReserve = "ON_FULFILLMENT" | "ON_SALE";
export type SellingPlanPricingPolicyAdjustmentType = "PERCENTAGE" | "FIXED_AMOUNT" | "PRICE";

/** `percentage` or `fixedValue` (a decimal string, as the platform's Decimal scalar). */
export interface SellingPlanValueInput {
  percentage?: number;
  fixedValue?: string;
}

export interface SellingPlanBillingPolicyInput {
  fixed?: {
    checkoutCharge?: { type?: SellingPlanCheckoutChargeType; value?: SellingPlanValueInput };
    remainingBalanceChargeTrigger?: SellingPlanRemainingBalanceChargeTrigger;
    /** ISO 8601 */
    remainingBalanceChargeExactTime?: string;
    /** ISO 8601 duration, e.g. "P30D" */
    remainingBalanceChargeTimeAfterCheckout?: string;
  };
}

export interface SellingPlanDeliveryPolicyInput {
  fixed?: { fulfillmentTrigger?: SellingPlanFulfillmentTrigger; fulfillmentExactTime?: string };
}

export interface SellingPlanInventoryPolicyInput {
  reserve?: SellingPlanReserve;
}

export interface SellingPlanPricingPolicyInput {
  fixed?: { adjustmentType?: SellingPlanPricingPolicyAdjustmentType; adjustmentValue?: SellingPlanValueInput };
}

export interface SellingPlanInput {
  /** Required in sellingPlansToUpdate. */
  id?: string;
  name?: string;
  description?: string;
  options?: string[];
  position?: number;
  category?: SellingPlanCategory;
  billingPolicy?: SellingPlanBillingPolicyInput;
  deliveryPolicy?: SellingPlanDeliveryPolicyInput;
  inventoryPolicy?: SellingPlanInventoryPolicyInput;
  pricingPolicies?: SellingPlanPricingPolicyInput[];
}

export interface SellingPlanGroupInput {
  name?: string;
  merchantCode?: string;
  description?: string;
  options?: string[];
  position?: number;
  sellingPlansToCreate?: SellingPlanInput[];
  sellingPlansToUpdate?: SellingPlanInput[];
  sellingPlansToDelete?: string[];
}
