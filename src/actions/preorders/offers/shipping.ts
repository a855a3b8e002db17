import { type Issue, fieldIssue } from "../../../core/errors.ts";
import { z } from "zod";
import type { AnyAction } from "../../../core/action.ts";
import { conflict } from "../../../core/errors.ts";
import { detachPlatformSellingPlan } from "./advanced.ts";
import { sets } from "../../../core/deep-partial.ts";
import { defineGroup, groupAction, groupGetAction, groupPatchAction, integer, label, longText, platformTag, timestamp, requiredLabel } from "./model.ts";

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
      days: integer().min(0).nullable().default(null),
      // on_date: the delivery date; asap: null
      date: timestamp.nullable().default(null),
    })
    .prefault({}),
  display: z
    .strictObject({
      show_details: z.boolean().default(true),
      shipping_text: longText.default("Ships as soon as it is available."),
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

const days = integer().min(0).nullable();

export const SHIPPING_ACTIONS: readonly AnyAction[] = [
  groupGetAction(
    shippingGroup,
    "The offer's shipping settings: delivery (applies_to_all_products; type asap with optional days, or on_date with date), display (show_details, shipping_text, shipping_line_item_property_enabled) and fulfillment (hold, hold_reason; split: enabled, type fulfillments or orders, hold_fulfillments, sequential_number, per_variant, order_tag, order_suffix, transaction_gateway).",
  ),
  groupPatchAction(
    shippingGroup,
    "Changes shipping settings: delivery, display, fulfillment. Rules: fulfillment.hold and fulfillment.split are mutually exclusive; fulfillment.split.type is fulfillments or orders; fulfillments needs delivery.type asap (already, or in the same request); fulfillment.split.enabled is a legacy toggle (true needs a type, false clears it); split.type orders also turns advanced.use_platform_selling_plan off (no deposits). delivery.type on_date needs delivery.date; switching the type clears the other type's field.",
  ),
  groupAction(shippingGroup, {
    action: "set_delivery_date",
    description:
      "Delivers on a date: delivery.type on_date with date (ISO 8601 timestamp); days become null. 409 while fulfillment.split.type is fulfillments (that split needs asap delivery). Answers the shipping group.",
    input: z.strictObject({ date: timestamp }),
    patch: (input) => ({ delivery: { type: "on_date" as const, date: input.date } }),
  }),
  groupAction(shippingGroup, {
    action: "set_delivery_asap",
    description:
      "Delivers as soon as possible: delivery.type asap, the date becomes null; optional days (integer >= 0 or null) is the expected number of days. Answers the shipping group.",
    input: z.strictObject({ days: days.optional() }),
    patch: (input) => ({ delivery: { type: "asap" as const, ...(input.days !== undefined ? { days: input.days } : {}) } }),
  }),
  groupAction(shippingGroup, {
    action: "set_delivery_days",
    description:
      "Sets the expected number of days of an asap delivery (days: integer >= 0, or null to not say). 409 when the offer delivers on a date: use set_delivery_asap. Answers the shipping group.",
    input: z.strictObject({ days }),
    precheck(offer) {
      if (offer.get(shippingGroup).delivery.type !== "asap") {
        throw conflict("shipping/set_delivery_days refused: delivery days apply to asap delivery and this offer delivers on a date; use set_delivery_asap");
      }
    },
    patch: (input) => ({ delivery: { days: input.days } }),
  }),
  groupAction(shippingGroup, {
    action: "set_shipping_text",
    description: "Sets the shipping text the storefront shows with the preorder (display.shipping_text). Answers the shipping group.",
    input: z.strictObject({ text: longText }),
    patch: (input) => ({ display: { shipping_text: input.text } }),
  }),
  groupAction(shippingGroup, {
    action: "set_split_order_tag",
    description: "Sets the tag given to orders split off for preorder items (fulfillment.split.order_tag; at most 40 characters, no comma). Answers the shipping group.",
    input: z.strictObject({ tag: platformTag }),
    patch: (input) => ({ fulfillment: { split: { order_tag: input.tag } } }),
  }),
  groupAction(shippingGroup, {
    action: "set_split_order_suffix",
    description: "Sets the suffix added to the name of an order split off for preorder items (fulfillment.split.order_suffix; at most 20 characters, empty for none). Answers the shipping group.",
    input: z.strictObject({ suffix: z.string().max(20) }),
    patch: (input) => ({ fulfillment: { split: { order_suffix: input.suffix } } }),
  }),
  groupAction(shippingGroup, {
    action: "set_split_transaction_gateway",
    description:
      "Sets the payment gateway recorded on the transactions of split-off orders (fulfillment.split.transaction_gateway; null for the original order's). Answers the shipping group.",
    input: z.strictObject({ gateway: requiredLabel.nullable() }),
    patch: (input) => ({ fulfillment: { split: { transaction_gateway: input.gateway } } }),
  }),
];
