import type {
  SellingPlanBillingPolicyInput,
  SellingPlanDeliveryPolicyInput,
  SellingPlanGroupInput,
  SellingPlanInput,
  SellingPlanPricingPolicyInput,
} from "../../platform/operations/selling-plans.ts";
import type { Inventory } from "../offers/groups/inventory.ts";
import type { PaymentOption, Payments, Shipping } from "../offers/groups/plan-groups.ts";

/**
 * An offer as the platform sees it: one selling plan group (the offer) holding one plan of
 * category PRE_ORDER. The plan charges the deposit when the deposit option is enabled (deposits
 * are what needs the platform's plan; with a choice of both options the plan is the deposit one
 * and a customer may still pay the balance at once), else the full price. One plan keeps
 * `platform_selling_plan_id` the one id orders are matched by. Pure: the same offer always maps
 * to the same input, so a sync can be repeated.
 */

/** What of an offer the mapping reads (the parsed groups, with their defaults). */
export interface OfferForPlatform {
  id: string;
  name: string;
  internal_name: string;
  payments: Payments;
  shipping: Shipping;
  inventory: Inventory;
}

/** The group's one option name; the plan's option value (its title) is what checkout shows. */
const GROUP_OPTION = "Payment";

const FULL_TITLE = "Pay in full";
const DEPOSIT_TITLE = "Pay a deposit";

/** The payment option the plan charges by: the deposit when enabled, else the full payment. */
function planOption(payments: Payments): PaymentOption {
  const enabled = payments.options.filter((o) => o.enabled);
  return (
    enabled.find((o) => o.type === "deposit") ??
    enabled.find((o) => o.type === "full") ?? { type: "full", enabled: true, deposit_percent: null, title: FULL_TITLE, description: "" }
  );
}

function billingPolicy(option: PaymentOption, payments: Payments): SellingPlanBillingPolicyInput {
  if (option.type === "full") {
    return { fixed: { checkoutCharge: { type: "PERCENTAGE", value: { percentage: 100 } }, remainingBalanceChargeTrigger: "NO_REMAINING_BALANCE" } };
  }
  const checkoutCharge = { type: "PERCENTAGE" as const, value: { percentage: option.deposit_percent ?? 50 } };
  const due = payments.remaining_balance.due;
  if (due.type === "on_date" && due.date !== null) {
    return { fixed: { checkoutCharge, remainingBalanceChargeTrigger: "EXACT_TIME", remainingBalanceChargeExactTime: due.date } };
  }
  return {
    fixed: { checkoutCharge, remainingBalanceChargeTrigger: "TIME_AFTER_CHECKOUT", remainingBalanceChargeTimeAfterCheckout: `P${due.days ?? 30}D` },
  };
}

function deliveryPolicy(shipping: Shipping): SellingPlanDeliveryPolicyInput {
  const { type, date } = shipping.delivery;
  if (type === "on_date" && date !== null) return { fixed: { fulfillmentTrigger: "EXACT_TIME", fulfillmentExactTime: date } };
  return { fixed: { fulfillmentTrigger: "ASAP" } };
}

function pricingPolicies(payments: Payments): SellingPlanPricingPolicyInput[] {
  const { type, value } = payments.discount;
  if (value === null || value <= 0) return [];
  if (type === "percentage") return [{ fixed: { adjustmentType: "PERCENTAGE", adjustmentValue: { percentage: value } } }];
  if (type === "fixed_amount") return [{ fixed: { adjustmentType: "FIXED_AMOUNT", adjustmentValue: { fixedValue: value.toFixed(2) } } }];
  return [];
}

/** The offer's plans (one; a list, as the platform's input takes them). */
function sellingPlansFromOffer(offer: OfferForPlatform): SellingPlanInput[] {
  const option = planOption(offer.payments);
  const title = option.title.trim() || (option.type === "full" ? FULL_TITLE : DEPOSIT_TITLE);
  return [
    {
      name: title,
      description: option.description,
      options: [title],
      position: 0,
      category: "PRE_ORDER",
      billingPolicy: billingPolicy(option, offer.payments),
      deliveryPolicy: deliveryPolicy(offer.shipping),
      inventoryPolicy: { reserve: offer.inventory.reservation.timing === "on_fulfillment" ? "ON_FULFILLMENT" : "ON_SALE" },
      pricingPolicies: pricingPolicies(offer.payments),
    },
  ];
}

/** The group input that creates the offer's selling plan group, with its plans. */
export function sellingPlanGroupInputFromOffer(offer: OfferForPlatform): SellingPlanGroupInput {
  return {
    name: offer.name,
    merchantCode: offer.internal_name.trim() || offer.name,
    options: [GROUP_OPTION],
    sellingPlansToCreate: sellingPlansFromOffer(offer),
  };
}

/**
 * The same, as an update of an existing group whose plans are `existingPlanIds` (in position
 * order): plans are updated in place by position (the plan keeps its id), missing ones created,
 * surplus ones (added on the platform by hand) deleted.
 */
export function sellingPlanGroupUpdateFromOffer(offer: OfferForPlatform, existingPlanIds: readonly string[]): SellingPlanGroupInput {
  const { sellingPlansToCreate: plans = [], ...group } = sellingPlanGroupInputFromOffer(offer);
  const update = plans.slice(0, existingPlanIds.length).map((plan, i) => ({ ...plan, id: existingPlanIds[i] ?? "" }));
  const create = plans.slice(existingPlanIds.length);
  const remove = existingPlanIds.slice(plans.length);
  return {
    ...group,
    ...(update.length > 0 ? { sellingPlansToUpdate: update } : {}),
    ...(create.length > 0 ? { sellingPlansToCreate: create } : {}),
    ...(remove.length > 0 ? { sellingPlansToDelete: remove } : {}),
  };
}
