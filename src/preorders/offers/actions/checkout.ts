import { z } from "zod";
import type { AnyAction } from "../../../core/action.ts";
import { groupAction, groupGetAction, groupPatchAction, longText } from "../model.ts";
import { checkoutGroup, orderTags } from "../groups/checkout.ts";

export const CHECKOUT_ACTIONS: readonly AnyAction[] = [
  groupGetAction(
    checkoutGroup,
    "The offer's checkout settings: terms (enabled, text, disable_button_until_acknowledged), mixed_cart (allowed, error_message) and order_tags (tags).",
    { aliases: ["show the preorder checkout settings", "can preorder and in stock items share a cart"] },
  ),
  groupPatchAction(
    checkoutGroup,
    "Changes checkout settings: terms, mixed_cart, order_tags. Tags: at most 250, each at most 40 characters without commas (duplicates dropped).",
    {
      aliases: ["update the preorder checkout settings", "require customers to accept preorder terms", "block mixed carts of preorder and in stock items"],
      notes: [
        "terms.disable_button_until_acknowledged needs terms.enabled.",
        "Enabled terms need a non-empty terms.text.",
        "mixed_cart.allowed false (preorder and in-stock items checked out separately) needs a non-empty mixed_cart.error_message.",
      ],
    },
  ),
  groupAction(checkoutGroup, {
    action: "set_mixed_cart_error_message",
    aliases: ["set the preorder mixed cart error message", "change the message for a blocked mixed cart"],
    description: "Sets the message shown when a blocked mixed cart (preorder and in-stock items) reaches checkout (mixed_cart.error_message). Answers the checkout group.",
    input: z.strictObject({ message: longText.min(1) }),
    patch: (input) => ({ mixed_cart: { error_message: input.message } }),
  }),
  groupAction(checkoutGroup, {
    action: "set_terms_text",
    aliases: ["set the preorder terms text", "change the preorder acknowledgement text"],
    description: "Sets the terms text shown next to the acceptance checkbox (terms.text). Answers the checkout group.",
    input: z.strictObject({ text: longText.min(1) }),
    patch: (input) => ({ terms: { text: input.text } }),
  }),
  groupAction(checkoutGroup, {
    action: "set_order_tags",
    aliases: ["set the preorder order tags", "tag orders containing a preorder"],
    notes: ["Replaces the whole tag set; [] removes every tag."],
    description:
      "Replaces the whole set of tags applied to orders containing this offer (order_tags.tags; at most 250, each at most 40 characters without commas; [] for none). Answers the checkout group.",
    input: z.strictObject({ tags: orderTags }),
    patch: (input) => ({ order_tags: { tags: input.tags } }),
  }),
];

