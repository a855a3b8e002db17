import { type Issue, fieldIssue } from "../../../core/errors.ts";
import { z } from "zod";
import { LIMITS, defineGroup, longText, platformTag } from "../model.ts";
import { checkoutOutput } from "../outputs.ts";

export const orderTags = z.array(platformTag).max(LIMITS.tags);

/** Checkout behaviour: terms to acknowledge, whether preorder and in-stock items can share a cart, and the tags given to orders. */
const checkoutSchema = z.strictObject({
  terms: z
    .strictObject({
      enabled: z.boolean().default(false),
      text: longText.default("I understand that this item is a preorder and ships later than items in stock."),
      disable_button_until_acknowledged: z.boolean().default(false),
    })
    .prefault({}),
  mixed_cart: z
    .strictObject({
      allowed: z.boolean().default(true),
      error_message: longText.default("Preorder items must be checked out separately from items in stock."),
    })
    .prefault({}),
  order_tags: z.strictObject({ tags: orderTags.default(() => ["preorder"]) }).prefault({}),
});

export const checkoutGroup = defineGroup({
  key: "checkout",
  schema: checkoutSchema,
  output: checkoutOutput,
  normalize(next) {
    next.order_tags.tags = [...new Set(next.order_tags.tags)];
    return [];
  },
  rules(value) {
    const violations: Issue[] = [];
    if (value.terms.disable_button_until_acknowledged && !value.terms.enabled) {
      violations.push(fieldIssue("terms.disable_button_until_acknowledged", "cannot be true while terms.enabled is false"));
    }
    if (value.terms.enabled && value.terms.text.trim() === "") violations.push(fieldIssue("terms.text", "must not be empty while terms.enabled is true"));
    if (!value.mixed_cart.allowed && value.mixed_cart.error_message.trim() === "") {
      violations.push(fieldIssue("mixed_cart.error_message", "must not be empty while mixed_cart.allowed is false"));
    }
    return violations;
  },
});
