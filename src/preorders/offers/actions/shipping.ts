import { z } from "zod";
import { jsonInt } from "../../../core/params.ts";
import type { AnyAction } from "../../../core/action.ts";
import { conflict } from "../../../core/errors.ts";
import { groupAction, groupGetAction, groupPatchAction, longText, platformTag, requiredLabel, timestamp } from "../model.ts";
import { shippingGroup } from "../groups/plan-groups.ts";
import { notifyOnDeliveryChange } from "../../notifications/delivery-change.ts";

const days = jsonInt().min(0).nullable();

// Writes that change the delivery queue the shipping_date_change notification (same transaction).
export const SHIPPING_ACTIONS: readonly AnyAction[] = [
  groupGetAction(
    shippingGroup,
    "The offer's shipping settings: delivery (applies_to_all_products; type asap with optional days, or on_date with date), display (show_details, shipping_text, shipping_line_item_property_enabled) and fulfillment (hold, hold_reason; split: enabled, type fulfillments or orders, hold_fulfillments, sequential_number, per_variant, order_tag, order_suffix, transaction_gateway).",
    { aliases: ["show the preorder shipping settings", "when do preorders ship"] },
  ),
  groupPatchAction(
    shippingGroup,
    "Changes shipping settings: delivery (when preorders ship), display (what the storefront says about it) and fulfillment (hold it, or split preorder items into their own fulfillments or orders); the rules are in the notes.",
    {
      aliases: ["update the preorder shipping settings", "split preorder items into their own orders", "hold fulfillment of preorder orders"],
      notes: [
        "fulfillment.hold and fulfillment.split are mutually exclusive: both cannot be on.",
        "fulfillment.split.type is fulfillments or orders and picks which split is on.",
        "fulfillment.split.type fulfillments needs delivery.type asap, already or in the same request.",
        "fulfillment.split.enabled is a legacy toggle: true needs a type too, false clears both.",
        "fulfillment.split.hold_fulfillments holds the split order's fulfillments; sequential_number gives split orders a sequential name; per_variant makes one split order per variant instead of one per offer.",
        "fulfillment.split.type orders turns advanced.use_platform_selling_plan off, and with it the deposit option.",
        "A split acts when a new order arrives: fulfillments gives the preorder items their own platform fulfillment order; orders moves them to a new platform order (order_tag, the split name as PO number, transaction_gateway) and sets them to 0 on the original. The order's order_split shows it; with the account's split_order_app on, the order is only tagged preorder-split-requested for that app.",
        "delivery.type on_date needs delivery.date; switching the delivery type clears the other type's field.",
      ],
    },
  ),
  groupAction(shippingGroup, {
    action: "set_delivery_date",
    aliases: ["set the preorder delivery date", "ship preorders on a date"],
    notes: ["Refused (409) while fulfillment.split.type is fulfillments: that split needs asap delivery."],
    description:
      "Delivers on a date: delivery.type on_date with date (ISO 8601 timestamp); days become null. 409 while fulfillment.split.type is fulfillments (that split needs asap delivery). Answers the shipping group.",
    input: z.strictObject({ date: timestamp }),
    patch: (input) => ({ delivery: { type: "on_date" as const, date: input.date } }),
  }),
  groupAction(shippingGroup, {
    action: "set_delivery_asap",
    aliases: ["ship preorders as soon as possible", "set preorder delivery to asap"],
    description:
      "Delivers as soon as possible: delivery.type asap, the date becomes null; optional days (integer >= 0 or null) is the expected number of days. Answers the shipping group.",
    input: z.strictObject({ days: days.optional() }),
    patch: (input) => ({ delivery: { type: "asap" as const, ...(input.days !== undefined ? { days: input.days } : {}) } }),
  }),
  groupAction(shippingGroup, {
    action: "set_delivery_days",
    aliases: ["set the expected preorder delivery days", "ship preorders within a number of days"],
    notes: ["Refused (409) when the offer delivers on a date: use set_delivery_asap."],
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
    aliases: ["set the preorder shipping text", "change the preorder shipping message"],
    description: "Sets the shipping text the storefront shows with the preorder (display.shipping_text). Answers the shipping group.",
    input: z.strictObject({ text: longText }),
    patch: (input) => ({ display: { shipping_text: input.text } }),
  }),
  groupAction(shippingGroup, {
    action: "set_split_order_tag",
    aliases: ["set the split preorder order tag", "tag split preorder orders"],
    description: "Sets the tag given to orders split off for preorder items (fulfillment.split.order_tag; at most 40 characters, no comma). Answers the shipping group.",
    input: z.strictObject({ tag: platformTag }),
    patch: (input) => ({ fulfillment: { split: { order_tag: input.tag } } }),
  }),
  groupAction(shippingGroup, {
    action: "set_split_order_suffix",
    aliases: ["set the split preorder order suffix", "change the suffix of split preorder orders"],
    description: "Sets the suffix added to the name of an order split off for preorder items (fulfillment.split.order_suffix; at most 20 characters, empty for none). Answers the shipping group.",
    input: z.strictObject({ suffix: z.string().max(20) }),
    patch: (input) => ({ fulfillment: { split: { order_suffix: input.suffix } } }),
  }),
  groupAction(shippingGroup, {
    action: "set_split_transaction_gateway",
    aliases: ["set the split preorder order gateway", "choose the payment gateway of split preorder orders"],
    description:
      "Sets the payment gateway through which orders split off for preorder items are completed (fulfillment.split.transaction_gateway: the platform's payment gateway id; null for the store's default). Answers the shipping group.",
    input: z.strictObject({ gateway: requiredLabel.nullable() }),
    patch: (input) => ({ fulfillment: { split: { transaction_gateway: input.gateway } } }),
  }),
].map(notifyOnDeliveryChange);
