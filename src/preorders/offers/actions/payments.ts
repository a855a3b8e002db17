import { z } from "zod";
import type { AnyAction } from "../../../core/action.ts";
import { conflict } from "../../../core/errors.ts";
import { atLeastOne, groupAction, groupGetAction, groupPatchAction, longText, requiredLabel } from "../model.ts";
import { PAYMENT_OPTION_TYPES, advancedGroup, paymentsGroup, withOption } from "../groups/plan-groups.ts";

const optionType = z.enum(PAYMENT_OPTION_TYPES);

export const PAYMENTS_ACTIONS: readonly AnyAction[] = [
  groupGetAction(
    paymentsGroup,
    "The offer's payment settings: mode (full, deposit, or choice when the customer picks; derived from the enabled options), discount (type no_discount, percentage or fixed_amount; value), options (type full or deposit, enabled, deposit_percent, title, description), remaining_balance (auto_collect, auto_collect_on_fulfillment, due: days_after_checkout with days, or on_date with date), show_partial_first and billing_widget_text (what the widget says about billing; null: nothing).",
    { aliases: ["show the preorder payment settings", "read the preorder deposit and discount"] },
  ),
  groupPatchAction(
    paymentsGroup,
    "Changes payment settings: discount, remaining_balance (its collection and due date), show_partial_first, billing_widget_text; the rules are in the notes.",
    {
      aliases: ["update the preorder payment settings", "set a preorder discount", "collect the remaining preorder balance automatically"],
      notes: [
        "remaining_balance.auto_collect and remaining_balance.auto_collect_on_fulfillment are mutually exclusive.",
        "discount.type no_discount clears the discount: its value becomes null.",
        "A percentage or fixed_amount discount needs a value above 0; a percentage is at most 100.",
        "Payment options are edited by set_option_copy, enable_option and disable_option, not by this PATCH.",
      ],
    },
  ),
  groupAction(paymentsGroup, {
    action: "set_billing_widget_text",
    aliases: ["set the preorder billing text of the widget", "explain the deposit and remaining balance on the product page"],
    description:
      "Sets the text the storefront widget shows about billing: what is paid now and what later (the deposit, the remaining balance and when it is due); text up to 2000 characters, null for none (billing_widget_text). It reaches the offer's storefront metafield on each variant (payments.billing_widget_text). Answers the payments group.",
    input: z.strictObject({ text: longText.nullable() }),
    patch: (input) => ({ billing_widget_text: input.text }),
  }),
  groupAction(paymentsGroup, {
    action: "set_option_copy",
    aliases: ["set the preorder payment option copy", "rename a preorder payment option"],
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
    aliases: ["enable a preorder payment option", "offer a deposit on a preorder", "let customers pay a preorder in full"],
    notes: ["Refused (409) for the deposit option while advanced.use_platform_selling_plan is false, as when the split into orders is on."],
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
    aliases: ["disable a preorder payment option", "stop offering a deposit on a preorder"],
    notes: ["Refused (409) for the only option enabled: one must stay enabled."],
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
