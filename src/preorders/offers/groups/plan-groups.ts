import { z } from "zod";
import { jsonInt } from "../../../core/params.ts";
import { sets } from "../../../core/deep-partial.ts";
import { type Issue, fieldIssue } from "../../../core/errors.ts";
import { LIMITS, type OfferState, defineGroup, label, longText, platformTag, requiredLabel, timestamp } from "../model.ts";
import { advancedOutput, paymentsOutput, shippingOutput } from "../outputs.ts";
import { DEFAULT_SHIPPING_TEXT } from "../../../storefront/shipping-text.ts";

// The advanced, payments and shipping groups constrain each other (deposits need the platform
// selling plan, a split into orders detaches it), so they are defined together: their action
// files import them from here, and no module imports another back.

export const BUTTON_TEXT_STATES = ["before_launch", "after_launch", "out_of_stock"] as const;

/** Platform selling plan attachment, custom CSS, and the button's text per display state. */
const advancedSchema = z.strictObject({
  // true: the offer is a selling plan group on the platform (deposits and partial payments need it)
  use_platform_selling_plan: z.boolean().default(true),
  custom_css: z.string().max(LIMITS.css).default(""),
  // null: the button shows widget.button.text in that state
  button_text_overrides: z
    .strictObject({
      before_launch: requiredLabel.nullable().default(null),
      after_launch: requiredLabel.nullable().default(null),
      out_of_stock: requiredLabel.nullable().default(null),
    })
    .prefault({}),
});

export function splitIsOrders(offer: OfferState): boolean {
  return offer.get(shippingGroup).fulfillment.split.type === "orders";
}

export const advancedGroup = defineGroup({
  key: "advanced",
  schema: advancedSchema,
  output: advancedOutput,
  normalize(next, _patch, offer) {
    // Without the platform's selling plan there are no deposits or partial payments.
    if (!next.use_platform_selling_plan) disableDeposits(offer);
    return [];
  },
  rules(value, env) {
    if (value.use_platform_selling_plan && splitIsOrders(env.offer)) {
      return [fieldIssue("use_platform_selling_plan", "cannot be true while shipping.fulfillment.split.type is orders; turn that split off first")];
    }
    return [];
  },
});

/** Turns the platform selling plan off (split into orders needs that), with what depends on it. */
function detachPlatformSellingPlan(offer: OfferState): void {
  offer.modify(advancedGroup, (value) => {
    value.use_platform_selling_plan = false;
  });
  disableDeposits(offer);
}

export const PAYMENT_OPTION_TYPES = ["full", "deposit"] as const;
type PaymentOptionType = (typeof PAYMENT_OPTION_TYPES)[number];
export const DISCOUNT_TYPES = ["no_discount", "percentage", "fixed_amount"] as const;

const optionSchema = z.strictObject({
  type: z.enum(PAYMENT_OPTION_TYPES),
  enabled: z.boolean(),
  // the share paid at checkout; null for the full payment
  deposit_percent: z.number().min(1).max(99).nullable(),
  title: label,
  description: longText,
});

export type PaymentOption = z.output<typeof optionSchema>;

const DEFAULT_OPTIONS: PaymentOption[] = [
  { type: "full", enabled: true, deposit_percent: null, title: "Pay in full", description: "Pay the whole price now." },
  {
    type: "deposit",
    enabled: false,
    deposit_percent: 50,
    title: "Pay a deposit",
    description: "Pay part of the price now and the rest before the item ships.",
  },
];

/**
 * How a preorder is paid: the payment options offered at checkout (full payment, a deposit),
 * a discount, and how the remaining balance of a deposit is collected.
 */
export const paymentsSchema = z.strictObject({
  discount: z
    .strictObject({
      type: z.enum(DISCOUNT_TYPES).nullable().default("no_discount"),
      // a percentage (0-100] or an amount in the shop's currency; null without a discount
      value: z.number().min(0).nullable().default(null),
    })
    .prefault({}),
  remaining_balance: z
    .strictObject({
      auto_collect: z.boolean().default(false),
      auto_collect_on_fulfillment: z.boolean().default(false),
      // when the balance is due: a number of days after checkout, or a date
      due: z
        .strictObject({
          type: z.enum(["days_after_checkout", "on_date"]).default("days_after_checkout"),
          days: jsonInt().min(0).nullable().default(30),
          date: timestamp.nullable().default(null),
        })
        .prefault({}),
    })
    .prefault({}),
  show_partial_first: z.boolean().default(false),
  // what the widget says about billing (the deposit now, the remaining balance later); null: nothing
  billing_widget_text: longText.nullable().default(null),
  options: z.array(optionSchema).default(() => structuredClone(DEFAULT_OPTIONS)),
});

export type Payments = z.output<typeof paymentsSchema>;

/** `full`, `deposit`, or `choice` when the customer picks between both: derived from the enabled options. */
function paymentMode(options: readonly PaymentOption[]): string {
  const enabled = options.filter((o) => o.enabled).map((o) => o.type);
  if (enabled.length > 1) return "choice";
  return enabled[0] ?? "full";
}

export const paymentsGroup = defineGroup({
  key: "payments",
  schema: paymentsSchema,
  output: paymentsOutput,
  // Options are edited by their own actions (payments rule 3); the mode follows from them.
  readOnly: ["options"],
  instead: {
    mode: "the mode follows from the enabled payment options; set them with POST /preorders/offers/{id}/payments/enable_option and disable_option (type full or deposit; both enabled: choice)",
    options: "payment options are edited by POST /preorders/offers/{id}/payments/enable_option, disable_option and set_option_copy",
  },
  normalize(next, patch) {
    // Payments rule 2: no_discount clears the discount; its value becomes null.
    if (next.discount.type === null || next.discount.type === "no_discount") next.discount.value = null;
    const due = patch.remaining_balance?.due;
    if (due?.type === "on_date" && due.days === undefined) next.remaining_balance.due.days = null;
    if (due?.type === "days_after_checkout" && due.date === undefined) next.remaining_balance.due.date = null;
    return [];
  },
  rules(value, env) {
    const violations: Issue[] = [];
    const balance = value.remaining_balance;
    // Payments rule 1: two toggles, mutually exclusive.
    if (balance.auto_collect && balance.auto_collect_on_fulfillment) {
      violations.push(
        sets(env.patch, "remaining_balance", "auto_collect_on_fulfillment") && !sets(env.patch, "remaining_balance", "auto_collect")
          ? fieldIssue("remaining_balance.auto_collect_on_fulfillment", "cannot be true while remaining_balance.auto_collect is true")
          : fieldIssue("remaining_balance.auto_collect", "cannot be true while remaining_balance.auto_collect_on_fulfillment is true"),
      );
    }
    const { type, value: amount } = value.discount;
    if (type === "percentage" || type === "fixed_amount") {
      if (amount === null) violations.push(fieldIssue("discount.value", `is required when discount.type is ${type}`));
      else if (amount <= 0) violations.push(fieldIssue("discount.value", "must be greater than 0"));
      else if (type === "percentage" && amount > 100) violations.push(fieldIssue("discount.value", "must be at most 100"));
    }
    if (balance.due.type === "on_date" && balance.due.date === null) {
      violations.push(fieldIssue("remaining_balance.due.date", "is required when remaining_balance.due.type is on_date"));
    }
    if (balance.due.type === "days_after_checkout" && balance.due.days === null) {
      violations.push(fieldIssue("remaining_balance.due.days", "is required when remaining_balance.due.type is days_after_checkout"));
    }
    if (balance.due.type === "on_date" && balance.due.days !== null) violations.push(fieldIssue("remaining_balance.due.days", "is not allowed when remaining_balance.due.type is on_date"));
    if (balance.due.type === "days_after_checkout" && balance.due.date !== null) {
      violations.push(fieldIssue("remaining_balance.due.date", "is not allowed when remaining_balance.due.type is days_after_checkout"));
    }
    // Invariants the option actions keep; checked here too for offers created with options (v1).
    if (!value.options.some((o) => o.enabled)) violations.push(fieldIssue("options", "must keep at least one option enabled"));
    if (value.options.some((o) => o.type === "deposit" && o.enabled) && !env.offer.get(advancedGroup).use_platform_selling_plan) {
      violations.push(fieldIssue("options", "cannot enable deposit while advanced.use_platform_selling_plan is false"));
    }
    return violations;
  },
  present(value) {
    const { options, ...rest } = value;
    return {
      mode: paymentMode(options),
      discount: rest.discount,
      options,
      remaining_balance: rest.remaining_balance,
      show_partial_first: rest.show_partial_first,
      billing_widget_text: rest.billing_widget_text,
    };
  },
});

/** The deposit option off (the full payment on if nothing else is): deposits need the platform selling plan. */
function disableDeposits(offer: OfferState): void {
  const { options } = offer.get(paymentsGroup);
  if (!options.some((o) => o.type === "deposit" && o.enabled)) return;
  offer.modify(paymentsGroup, (value) => {
    value.options = withOption(value.options, "deposit", { enabled: false });
    if (!value.options.some((o) => o.enabled)) value.options = withOption(value.options, "full", { enabled: true });
  });
}

export function withOption(options: readonly PaymentOption[], type: PaymentOptionType, change: Partial<PaymentOption>): PaymentOption[] {
  const missing = DEFAULT_OPTIONS.find((o) => o.type === type);
  const list = options.some((o) => o.type === type) || !missing ? [...options] : [...options, structuredClone(missing)];
  return list.map((o) => (o.type === type ? { ...o, ...change } : o));
}

export const DELIVERY_TYPES = ["asap", "on_date"] as const;
export const SPLIT_TYPES = ["fulfillments", "orders"] as const;

/**
 * When preorders ship and how their fulfillment is handled: the delivery (as soon as possible,
 * optionally within a number of days, or on a date), what the storefront shows about it, and
 * either holding fulfillment or splitting preorder items off (into their own fulfillments or
 * their own orders).
 */
export const shippingSchema = z.strictObject({
  delivery: z
    .strictObject({
      applies_to_all_products: z.boolean().default(true),
      type: z.enum(DELIVERY_TYPES).default("asap"),
      // asap: expected within this many days (null: not said); on_date: null
      days: jsonInt().min(0).nullable().default(null),
      // on_date: the delivery date; asap: null
      date: timestamp.nullable().default(null),
    })
    .prefault({}),
  display: z
    .strictObject({
      show_details: z.boolean().default(true),
      shipping_text: longText.default(DEFAULT_SHIPPING_TEXT),
      shipping_line_item_property_enabled: z.boolean().default(false),
    })
    .prefault({}),
  fulfillment: z
    .strictObject({
      // holds the fulfillment orders that contain preorder items; exclusive with split
      hold: z.boolean().default(false),
      hold_reason: label.default("Preorder items are not in stock yet."),
      split: z
        .strictObject({
          // legacy toggle: true needs a type, false clears it; otherwise it follows the type
          enabled: z.boolean().default(false),
          type: z.enum(SPLIT_TYPES).nullable().default(null),
          hold_fulfillments: z.boolean().default(false),
          sequential_number: z.boolean().default(false),
          per_variant: z.boolean().default(false),
          order_tag: platformTag.default("preorder-split"),
          order_suffix: z.string().max(20).default("-P"),
          transaction_gateway: requiredLabel.nullable().default(null),
        })
        .prefault({}),
    })
    .prefault({}),
});

export type Shipping = z.output<typeof shippingSchema>;

export const shippingGroup = defineGroup({
  key: "shipping",
  schema: shippingSchema,
  output: shippingOutput,
  normalize(next, patch, offer) {
    const violations: Issue[] = [];
    const split = patch.fulfillment?.split;
    // Rule 4: the legacy toggle. false clears both; true needs a type, now or in the same request.
    if (split?.enabled === false) {
      if (split.type !== undefined && split.type !== null) {
        violations.push(fieldIssue("fulfillment.split.type", "is not allowed when fulfillment.split.enabled is false"));
      }
      next.fulfillment.split.type = null;
    }
    if (split?.enabled === true && next.fulfillment.split.type === null) {
      violations.push(fieldIssue("fulfillment.split.type", "is required when fulfillment.split.enabled is true"));
    }
    next.fulfillment.split.enabled = next.fulfillment.split.type !== null;
    // Switching the delivery type drops what only the other type uses, unless the request sent it.
    const delivery = patch.delivery;
    if (delivery?.type === "asap" && delivery.date === undefined) next.delivery.date = null;
    if (delivery?.type === "on_date" && delivery.days === undefined) next.delivery.days = null;
    // Splitting into orders takes the offer off the platform selling plan (as v1's split_orders_enabled).
    const before = offer.get(shippingGroup).fulfillment.split.type;
    if (violations.length === 0 && next.fulfillment.split.type === "orders" && before !== "orders") detachPlatformSellingPlan(offer);
    return violations;
  },
  rules(value, { patch }) {
    const violations: Issue[] = [];
    const { delivery, fulfillment } = value;
    const splitType = fulfillment.split.type;
    // Rules 1 and 2: hold and split (either type) are mutually exclusive.
    if (fulfillment.hold && splitType !== null) {
      violations.push(
        sets(patch, "fulfillment", "hold")
          ? fieldIssue("fulfillment.hold", "cannot be true while fulfillment.split is on")
          : fieldIssue("fulfillment.split.type", "cannot be set while fulfillment.hold is true"),
      );
    }
    // Rule 3: splitting into fulfillments needs asap delivery, now or in the same request.
    if (splitType === "fulfillments" && delivery.type !== "asap") {
      violations.push(
        sets(patch, "delivery", "type")
          ? fieldIssue("delivery.type", "must be asap while fulfillment.split.type is fulfillments")
          : fieldIssue("fulfillment.split.type", "cannot be fulfillments unless delivery.type is asap"),
      );
    }
    if (delivery.type === "on_date" && delivery.date === null) violations.push(fieldIssue("delivery.date", "is required when delivery.type is on_date"));
    if (delivery.type === "on_date" && delivery.days !== null) violations.push(fieldIssue("delivery.days", "is not allowed when delivery.type is on_date"));
    if (delivery.type === "asap" && delivery.date !== null) violations.push(fieldIssue("delivery.date", "is not allowed when delivery.type is asap"));
    return violations;
  },
});
