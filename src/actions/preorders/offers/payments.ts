import { type Issue, fieldIssue } from "../../../core/errors.ts";
import { z } from "zod";
import type { AnyAction } from "../../../core/action.ts";
import { conflict } from "../../../core/errors.ts";
import { advancedGroup } from "./advanced.ts";
import { sets } from "../../../core/deep-partial.ts";
import { type OfferState, atLeastOne, defineGroup, groupAction, groupGetAction, groupPatchAction, integer, label, longText, timestamp, requiredLabel } from "./model.ts";

export const PAYMENT_OPTION_TYPES = ["full", "deposit"] as const;
export type PaymentOptionType = (typeof PAYMENT_OPTION_TYPES)[number];
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
          days: integer().min(0).nullable().default(30),
          date: timestamp.nullable().default(null),
        })
        .prefault({}),
    })
    .prefault({}),
  show_partial_first: z.boolean().default(false),
  options: z.array(optionSchema).default(() => structuredClone(DEFAULT_OPTIONS)),
});

export type Payments = z.output<typeof paymentsSchema>;

/** `full`, `deposit`, or `choice` when the customer picks between both: derived from the enabled options. */
export function paymentMode(options: readonly PaymentOption[]): string {
  const enabled = options.filter((o) => o.enabled).map((o) => o.type);
  if (enabled.length > 1) return "choice";
  return enabled[0] ?? "full";
}

export const paymentsGroup = defineGroup({
  key: "payments",
  schema: paymentsSchema,
  // Options are edited by their own actions (payments rule 3); the mode follows from them.
  readOnly: ["options"],
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
    return { mode: paymentMode(options), discount: rest.discount, options, remaining_balance: rest.remaining_balance, show_partial_first: rest.show_partial_first };
  },
});

/** The deposit option off (the full payment on if nothing else is): deposits need the platform selling plan. */
export function disableDeposits(offer: OfferState): void {
  const { options } = offer.get(paymentsGroup);
  if (!options.some((o) => o.type === "deposit" && o.enabled)) return;
  offer.modify(paymentsGroup, (value) => {
    value.options = withOption(value.options, "deposit", { enabled: false });
    if (!value.options.some((o) => o.enabled)) value.options = withOption(value.options, "full", { enabled: true });
  });
}

function withOption(options: readonly PaymentOption[], type: PaymentOptionType, change: Partial<PaymentOption>): PaymentOption[] {
  const missing = DEFAULT_OPTIONS.find((o) => o.type === type);
  const list = options.some((o) => o.type === type) || !missing ? [...options] : [...options, structuredClone(missing)];
  return list.map((o) => (o.type === type ? { ...o, ...change } : o));
}

const optionType = z.enum(PAYMENT_OPTION_TYPES);

export const PAYMENTS_ACTIONS: readonly AnyAction[] = [
  groupGetAction(
    paymentsGroup,
    "The offer's payment settings: mode (full, deposit, or choice when the customer picks; derived from the enabled options), discount (type no_discount, percentage or fixed_amount; value), options (type full or deposit, enabled, deposit_percent, title, description), remaining_balance (auto_collect, auto_collect_on_fulfillment, due: days_after_checkout with days, or on_date with date) and show_partial_first.",
  ),
  groupPatchAction(
    paymentsGroup,
    "Changes payment settings: discount, remaining_balance, show_partial_first. remaining_balance.auto_collect and auto_collect_on_fulfillment are mutually exclusive. discount.type no_discount clears the discount (its value becomes null); percentage and fixed_amount need a value above 0 (a percentage at most 100). options are not edited here: use set_option_copy, enable_option and disable_option.",
  ),
  groupAction(paymentsGroup, {
    action: "set_option_copy",
    description: "Sets the title and/or description a payment option shows at checkout: type is full or deposit; at least one of title, description. Answers the payments group.",
    input: z
      .strictObject({ type: optionType, title: requiredLabel.optional(), description: longText.optional() })
      .superRefine(atLeastOne(["title", "description"])),
    patch: (input, current) => ({
      options: withOption(current.options, input.type, {
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
      }),
    }),
  }),
  groupAction(paymentsGroup, {
    action: "enable_option",
    description:
      "Offers a payment option at checkout: type full or deposit; deposit_percent (1-99, deposit only) sets the share paid at checkout. The deposit option needs the platform selling plan (409 while advanced.use_platform_selling_plan is false, as when the split into orders is on). Idempotent. Answers the payments group.",
    input: z
      .strictObject({ type: optionType, deposit_percent: z.number().min(1).max(99).optional() })
      .superRefine((value, ctx) => {
        if (value.type === "full" && value.deposit_percent !== undefined) {
          ctx.addIssue({ code: "custom", path: ["deposit_percent"], message: "is not allowed when type is full" });
        }
      }),
    precheck(offer, input) {
      if (input.type === "deposit" && !offer.get(advancedGroup).use_platform_selling_plan) {
        throw conflict("payments/enable_option refused: deposits need the platform selling plan; advanced.use_platform_selling_plan is false");
      }
    },
    patch: (input, current) => ({
      options: withOption(current.options, input.type, {
        enabled: true,
        ...(input.deposit_percent !== undefined ? { deposit_percent: input.deposit_percent } : {}),
      }),
    }),
  }),
  groupAction(paymentsGroup, {
    action: "disable_option",
    description: "Stops offering a payment option at checkout: type full or deposit. 409 when it is the only option enabled (one must stay). Idempotent. Answers the payments group.",
    input: z.strictObject({ type: optionType }),
    precheck(offer, input) {
      const enabled = offer.get(paymentsGroup).options.filter((o) => o.enabled);
      if (enabled.length === 1 && enabled[0]?.type === input.type) {
        throw conflict(`payments/disable_option refused: ${input.type} is the only payment option enabled; enable another first`);
      }
    },
    patch: (input, current) => ({ options: withOption(current.options, input.type, { enabled: false }) }),
  }),
];
