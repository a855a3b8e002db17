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
 * An offer as the platform sees it (decision 0212, amending 0032): one selling plan group (the
 * offer) holding one plan of category PRE_ORDER per enabled payment option, so the option a
 * shopper chooses is the plan the checkout charges by. The plans follow the widget's order of the
 * options (the deposit first with show_partial_first); the first is the one
 * `platform_selling_plan_id` names. A plan's payment option is told by its billing policy (a full
 * payment leaves no remaining balance, a deposit does): the one key that stays while the
 * option's copy changes, and that the platform itself shows, so a sync keeps each option's plan
 * id. Pure: the same offer always maps to the same input, so a sync can be repeated.
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

export type PaymentOptionType = PaymentOption["type"];

/** The enabled options in the widget's order (show_partial_first puts the deposit first); a full payment when none is. */
export function planOptions(payments: Payments): PaymentOption[] {
  const enabled = payments.options.filter((o) => o.enabled);
  if (payments.show_partial_first) enabled.sort((a, b) => Number(b.type === "deposit") - Number(a.type === "deposit"));
  // One plan per option type: a second option of a type the first already stands for has no plan of its own.
  const seen = new Set<string>();
  const options = enabled.filter((o) => !seen.has(o.type) && seen.add(o.type));
  return options.length > 0 ? options : [{ type: "full", enabled: true, deposit_percent: null, title: FULL_TITLE, description: "" }];
}

/** The payment option a plan on the platform charges by, from its billing policy (null: not one of ours). */
export function paymentOptionOfPlan(plan: { billingPolicy?: { remainingBalanceChargeTrigger?: string | null } | null }): PaymentOptionType | null {
  const trigger = plan.billingPolicy?.remainingBalanceChargeTrigger;
  if (trigger === undefined || trigger === null) return null;
  return trigger === "NO_REMAINING_BALANCE" ? "full" : "deposit";
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

/** The plan's title: the option's, a default for a blank one, made unique within the group (the platform refuses two plans with the same options). */
function planTitles(options: readonly PaymentOption[]): string[] {
  const titles: string[] = [];
  for (const option of options) {
    const title = option.title.trim() || (option.type === "full" ? FULL_TITLE : DEPOSIT_TITLE);
    titles.push(titles.includes(title) ? `${title} (${option.type === "full" ? FULL_TITLE : `${option.deposit_percent ?? 50}%`})` : title);
  }
  return titles;
}

/** The offer's plans, one per enabled payment option in the widget's order, each with its option's type. */
export function sellingPlansFromOffer(offer: OfferForPlatform): { option: PaymentOptionType; plan: SellingPlanInput }[] {
  const options = planOptions(offer.payments);
  const titles = planTitles(options);
  return options.map((option, position) => {
    const title = titles[position] ?? FULL_TITLE;
    return {
      option: option.type,
      plan: {
        name: title,
        description: option.description,
        options: [title],
        position,
        category: "PRE_ORDER",
        billingPolicy: billingPolicy(option, offer.payments),
        deliveryPolicy: deliveryPolicy(offer.shipping),
        inventoryPolicy: { reserve: offer.inventory.reservation.timing === "on_fulfillment" ? "ON_FULFILLMENT" : "ON_SALE" },
        pricingPolicies: pricingPolicies(offer.payments),
      },
    };
  });
}

/** The group input that creates the offer's selling plan group, with its plans. */
export function sellingPlanGroupInputFromOffer(offer: OfferForPlatform): SellingPlanGroupInput {
  return {
    name: offer.name,
    merchantCode: offer.internal_name.trim() || offer.name,
    options: [GROUP_OPTION],
    sellingPlansToCreate: sellingPlansFromOffer(offer).map((p) => p.plan),
  };
}

/** A plan the group holds: its id and the payment option it charges by (paymentOptionOfPlan). */
export interface ExistingPlan {
  id: string;
  option: PaymentOptionType | null;
}

/**
 * The same, as an update of an existing group holding `existing` (in the platform's order): each
 * enabled option's plan is updated in place (the first plan of its option type keeps its id),
 * missing ones are created, and the rest (a disabled option's, a second of a type, one added on
 * the platform by hand) deleted.
 */
export function sellingPlanGroupUpdateFromOffer(offer: OfferForPlatform, existing: readonly ExistingPlan[]): SellingPlanGroupInput {
  const { sellingPlansToCreate: _plans, ...group } = sellingPlanGroupInputFromOffer(offer);
  const kept = new Set<string>();
  const update: SellingPlanInput[] = [];
  const create: SellingPlanInput[] = [];
  for (const { option, plan } of sellingPlansFromOffer(offer)) {
    const match = existing.find((p) => p.option === option && !kept.has(p.id));
    if (match) {
      kept.add(match.id);
      update.push({ ...plan, id: match.id });
    } else create.push(plan);
  }
  const remove = existing.filter((p) => !kept.has(p.id)).map((p) => p.id);
  return {
    ...group,
    ...(update.length > 0 ? { sellingPlansToUpdate: update } : {}),
    ...(create.length > 0 ? { sellingPlansToCreate: create } : {}),
    ...(remove.length > 0 ? { sellingPlansToDelete: remove } : {}),
  };
}
