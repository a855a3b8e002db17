/** Selling plan inputs as graphql-js hands them over: validated against the schema, fields optional and nullable. */

export interface ChargeValueInput {
  percentage?: number | null;
  fixedValue?: string | number | null;
}

export interface FixedBillingInput {
  checkoutCharge?: { type?: string | null; value?: ChargeValueInput | null } | null;
  remainingBalanceChargeTrigger?: string | null;
  remainingBalanceChargeExactTime?: string | null;
  remainingBalanceChargeTimeAfterCheckout?: string | null;
}

export interface FixedDeliveryInput {
  fulfillmentTrigger?: string | null;
  fulfillmentExactTime?: string | null;
}

export interface FixedPricingInput {
  adjustmentType?: string | null;
  adjustmentValue?: ChargeValueInput | null;
}

export interface SellingPlanInput {
  id?: string | null;
  name?: string | null;
  description?: string | null;
  options?: string[] | null;
  position?: number | null;
  category?: string | null;
  billingPolicy?: { fixed?: FixedBillingInput | null } | null;
  deliveryPolicy?: { fixed?: FixedDeliveryInput | null } | null;
  inventoryPolicy?: { reserve?: string | null } | null;
  pricingPolicies?: { fixed?: FixedPricingInput | null }[] | null;
}

export interface SellingPlanGroupInput {
  name?: string | null;
  merchantCode?: string | null;
  description?: string | null;
  options?: string[] | null;
  position?: number | null;
  sellingPlansToCreate?: SellingPlanInput[] | null;
  sellingPlansToUpdate?: SellingPlanInput[] | null;
  sellingPlansToDelete?: string[] | null;
}

export interface ResourceInput {
  productVariantIds?: string[] | null;
  productIds?: string[] | null;
}
