import type { BillingPolicy, ChargeValue, DeliveryPolicy, PricingPolicy } from "../model.ts";
import type { ChargeValueInput, FixedBillingInput, FixedDeliveryInput, FixedPricingInput } from "./selling-plan-input.ts";
import type { UserErrors } from "./user-errors.ts";

/**
 * Selling plan policies checked the way the platform checks them: required parts, a charge value
 * that matches its type, and the times a trigger needs. Each answers the policy, or undefined after
 * recording user errors.
 */

type Path = readonly (string | number)[];

function decimal(value: string | number | null | undefined): string | null | undefined {
  if (value === null || value === undefined) return null;
  const n = Number(value);
  if (typeof value === "string" && !/^-?\d+(\.\d+)?$/.test(value.trim())) return undefined;
  return Number.isFinite(n) ? n.toFixed(2) : undefined;
}

/** A DateTime input as milliseconds; undefined when it is not a date. */
function dateTime(value: string | null | undefined): number | null | undefined {
  if (value === null || value === undefined) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at;
}

function chargeValue(type: string, value: ChargeValueInput | null | undefined, path: Path, errors: UserErrors): ChargeValue | undefined {
  const percentage = value?.percentage ?? null;
  const fixedValue = decimal(value?.fixedValue);
  if (fixedValue === undefined) {
    errors.add([...path, "fixedValue"], "Fixed value is not a decimal amount", "INVALID");
    return undefined;
  }
  if (type === "PERCENTAGE") {
    if (percentage === null || fixedValue !== null) {
      errors.add(path, "Value must be a percentage when the type is PERCENTAGE", "CHECKOUT_CHARGE_VALUE_AND_TYPE_MUST_MATCH");
      return undefined;
    }
    if (percentage < 0 || percentage > 100) {
      errors.add([...path, "percentage"], "Percentage must be between 0 and 100", "INVALID");
      return undefined;
    }
    return { percentage, fixedValue: null };
  }
  if (fixedValue === null || percentage !== null) {
    errors.add(path, `Value must be a fixed amount when the type is ${type}`, "CHECKOUT_CHARGE_VALUE_AND_TYPE_MUST_MATCH");
    return undefined;
  }
  if (Number(fixedValue) < 0) {
    errors.add([...path, "fixedValue"], "Fixed value must be greater than or equal to 0", "INVALID");
    return undefined;
  }
  return { percentage: null, fixedValue };
}

export function billingPolicy(input: { fixed?: FixedBillingInput | null }, path: Path, errors: UserErrors): BillingPolicy | undefined {
  const fixed = input.fixed;
  const at = [...path, "fixed"];
  if (!fixed) {
    errors.add(path, "Billing policy must be fixed for this plan", "SELLING_PLAN_BILLING_POLICY_MISSING");
    return undefined;
  }
  const before = errors.list.length;
  const charge = fixed.checkoutCharge;
  let value: ChargeValue | undefined;
  if (!charge?.type) errors.add([...at, "checkoutCharge"], "Checkout charge can't be blank", "BLANK");
  else value = chargeValue(charge.type, charge.value, [...at, "checkoutCharge", "value"], errors);
  const trigger = fixed.remainingBalanceChargeTrigger;
  if (!trigger) errors.add([...at, "remainingBalanceChargeTrigger"], "Remaining balance charge trigger can't be blank", "BLANK");
  const exactTime = dateTime(fixed.remainingBalanceChargeExactTime);
  if (exactTime === undefined) errors.add([...at, "remainingBalanceChargeExactTime"], "Remaining balance charge exact time is not a date", "INVALID");
  if (trigger === "EXACT_TIME" && exactTime === null) {
    errors.add([...at, "remainingBalanceChargeExactTime"], "Remaining balance charge exact time is required when the trigger is EXACT_TIME", "REMAINING_BALANCE_CHARGE_EXACT_TIME_REQUIRED");
  }
  const afterCheckout = fixed.remainingBalanceChargeTimeAfterCheckout ?? null;
  if (trigger === "TIME_AFTER_CHECKOUT" && !(afterCheckout && /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/.test(afterCheckout))) {
    errors.add(
      [...at, "remainingBalanceChargeTimeAfterCheckout"],
      "Remaining balance charge time after checkout must be an ISO 8601 duration greater than zero",
      "REMAINING_BALANCE_CHARGE_TIME_AFTER_CHECKOUT_MUST_BE_GREATER_THAN_ZERO",
    );
  }
  if (value && charge?.type === "PERCENTAGE") {
    const full = value.percentage === 100;
    if (full && trigger && trigger !== "NO_REMAINING_BALANCE") {
      errors.add([...at, "remainingBalanceChargeTrigger"], "Remaining balance charge trigger must be NO_REMAINING_BALANCE when the checkout charge is 100%", "REMAINING_BALANCE_CHARGE_TRIGGER_ON_FULL_CHECKOUT");
    }
    if (!full && trigger === "NO_REMAINING_BALANCE") {
      errors.add(
        [...at, "remainingBalanceChargeTrigger"],
        "Remaining balance charge trigger can't be NO_REMAINING_BALANCE when the checkout charge is less than 100%",
        "REMAINING_BALANCE_CHARGE_TRIGGER_NO_REMAINING_BALANCE_ON_PARTIAL_PERCENTAGE_CHECKOUT_CHARGE",
      );
    }
  }
  if (errors.list.length > before || !value || !charge?.type || !trigger || exactTime === undefined) return undefined;
  return {
    checkoutCharge: { type: charge.type, value },
    remainingBalanceChargeTrigger: trigger,
    remainingBalanceChargeExactTime: exactTime,
    remainingBalanceChargeTimeAfterCheckout: afterCheckout,
  };
}

export function deliveryPolicy(input: { fixed?: FixedDeliveryInput | null }, path: Path, errors: UserErrors): DeliveryPolicy | undefined {
  const fixed = input.fixed;
  if (!fixed) {
    errors.add(path, "Delivery policy must be fixed for this plan", "SELLING_PLAN_DELIVERY_POLICY_MISSING");
    return undefined;
  }
  const at = [...path, "fixed"];
  const trigger = fixed.fulfillmentTrigger;
  const exactTime = dateTime(fixed.fulfillmentExactTime);
  if (!trigger) {
    errors.add([...at, "fulfillmentTrigger"], "Fulfillment trigger can't be blank", "BLANK");
    return undefined;
  }
  if (exactTime === undefined) {
    errors.add([...at, "fulfillmentExactTime"], "Fulfillment exact time is not a date", "INVALID");
    return undefined;
  }
  if (trigger === "EXACT_TIME" && exactTime === null) {
    errors.add([...at, "fulfillmentExactTime"], "Fulfillment exact time is required when the trigger is EXACT_TIME", "FULFILLMENT_EXACT_TIME_REQUIRED");
    return undefined;
  }
  if (trigger !== "EXACT_TIME" && exactTime !== null) {
    errors.add([...at, "fulfillmentExactTime"], "Fulfillment exact time is only allowed when the trigger is EXACT_TIME", "FULFILLMENT_EXACT_TIME_NOT_ALLOWED");
    return undefined;
  }
  return { fulfillmentTrigger: trigger, fulfillmentExactTime: exactTime };
}

/** The platform allows two pricing policies per plan. */
const MAX_PRICING_POLICIES = 2;

export function pricingPolicies(input: { fixed?: FixedPricingInput | null }[], path: Path, errors: UserErrors): PricingPolicy[] | undefined {
  if (input.length > MAX_PRICING_POLICIES) {
    errors.add(path, `A selling plan can have at most ${MAX_PRICING_POLICIES} pricing policies`, "TOO_BIG");
    return undefined;
  }
  const before = errors.list.length;
  const policies: PricingPolicy[] = [];
  input.forEach((policy, i) => {
    const at = [...path, i, "fixed"];
    const type = policy.fixed?.adjustmentType;
    if (!policy.fixed || !type) {
      errors.add([...at, "adjustmentType"], "Adjustment type can't be blank", "BLANK");
      return;
    }
    const value = chargeValue(type, policy.fixed.adjustmentValue, [...at, "adjustmentValue"], errors);
    if (value) policies.push({ adjustmentType: type, adjustmentValue: value });
  });
  return errors.list.length > before ? undefined : policies;
}
