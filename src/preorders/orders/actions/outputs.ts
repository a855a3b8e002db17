import { z } from "zod";
import { timestampOutput } from "../../../core/outputs.ts";
import { ORDER_STATUSES } from "../model.ts";
import { ORDER_RULES } from "../rule-breaks.ts";

/** Output schemas of the orders actions: what presentOrder (src/preorders/orders/model.ts) answers. */

const money = z.string().describe("decimal amount in the order's currency, e.g. 100.00");

const orderLineOutput = z.strictObject({
  id: z.string().describe("the platform's line item id"),
  variant_id: z.string().nullable(),
  product_id: z.string().nullable(),
  quantity: z.int(),
  price: money,
  selling_plan_id: z.string().nullable().describe("the selling plan of a preorder line (offer:<offer id> for a line of an offer sold without a platform selling plan, decision 0209); null on a regular line"),
  offer_id: z.string().nullable().describe("the offer whose selling plan this is; null until known"),
  payment_option: z
    .enum(["full", "deposit"])
    .nullable()
    .describe("the offer's payment option the shopper chose: the option of the line's selling plan (one per option, decision 0212); null when unknown (a regular line, a line sold without a platform selling plan)"),
  preorder: z.boolean(),
});

const ruleBreakOutput = z.strictObject({
  offer_id: z.string(),
  rule: z
    .enum(ORDER_RULES)
    .describe(
      "the offer's rule: a limit (per_order.min, per_order.max, per_customer.max, total.max), mixed_cart, markets (the order's market, from the buyer's country, is not one of the offer's) or pos (an order of the point of sale holds a preorder line of an offer whose integrations.pos.enabled is false)",
    ),
  variant_id: z.string().nullable().describe("per_order rules: the variant whose quantity broke it"),
  limit: z.int().nullable().describe("the limit broken; null for mixed_cart, markets and pos"),
  units: z.int().nullable().describe("the units that broke it: the variant's in this order, the customer's, or the offer's in total"),
});

const fulfillmentHoldOutput = z.strictObject({
  fulfillment_order_id: z.string().describe("the platform's fulfillment order on hold"),
  hold_id: z.string().describe("the platform's fulfillment hold"),
  offer_ids: z.array(z.string()).describe("the offers whose shipping.fulfillment.hold placed it"),
  reason: z.string().describe("the platform's hold reason: INVENTORY_OUT_OF_STOCK"),
  reason_notes: z.string().nullable().describe("the offers' shipping.fulfillment.hold_reason"),
  held_at: timestampOutput,
  released_at: timestampOutput.nullable().describe("when the order's release released it; null while it holds"),
});

const orderSplitOutput = z.strictObject({
  type: z.enum(["fulfillments", "orders", "app"]).describe("fulfillments: the preorder items in their own fulfillment orders; orders: moved to new orders; app: handed to the split-order app"),
  state: z.enum(["pending", "done", "handed_off"]),
  offer_ids: z.array(z.string()),
  fulfillment_orders: z.array(z.string()).describe("fulfillments: the platform fulfillment orders holding the preorder items"),
  orders: z
    .array(
      z.strictObject({
        key: z.string(),
        name: z.string().describe("the split name (original name, order_suffix, and a number with sequential_number), the new order's PO number"),
        line_item_ids: z.array(z.string()).describe("the original order's line items moved (their quantity there is now 0)"),
        variant_ids: z.array(z.string()),
        draft_order_id: z.string().nullable(),
        draft_requested_at: z
          .string()
          .nullable()
          .optional()
          .describe("when the split asked the platform for the draft order; with no draft_order_id, the next attempt looks for that draft before asking again"),
        platform_order_id: z.string().nullable().describe("the new platform order holding the moved items; null until it is made"),
        platform_name: z.string().nullable(),
      }),
    )
    .describe("orders: one new order per offer, or per variant with per_variant"),
  edited: z.boolean().describe("orders: the moved items' quantities are 0 on the original order"),
  requested_at: timestampOutput,
  done_at: timestampOutput.nullable(),
});

export const orderOutput = z
  .strictObject({
    id: z.uuid(),
    platform_order_id: z.string(),
    name: z.string().nullable(),
    status: z.enum(ORDER_STATUSES).describe("derived from the order's facts, never written"),
    email: z.string().nullable(),
    customer_id: z.string().nullable(),
    currency: z.string(),
    total_price: money,
    total_outstanding: money,
    deposit_paid: money.nullable().describe("what the deposit paid, when the order had a balance after it; null otherwise"),
    balance_amount: money.describe("the balance left after the deposit (0.00: paid in full)"),
    financial_status: z.string().nullable(),
    fulfillment_status: z.string().nullable(),
    tags: z.array(z.string()),
    app_tags: z
      .array(z.string())
      .describe("the tags this app applies to the order (its offers' checkout.order_tags and the shop's orders.tags), pushed to the platform order and part of tags"),
    rule_breaks: z
      .array(ruleBreakOutput)
      .describe(
        "the offers' rules this order broke when it arrived (empty: none): the order is tagged on the platform (preorder-limit-exceeded and the rule's tag) and the preorder_order.rules_broken event is sent",
      ),
    fulfillment_holds: z
      .array(fulfillmentHoldOutput)
      .describe(
        "the platform fulfillment holds placed for the offers' shipping.fulfillment.hold (empty: none): the fulfillment orders with the offers' preorder items wait until the order is released",
      ),
    fulfillment_hold_error: z
      .string()
      .nullable()
      .describe("the last failure of placing or releasing the fulfillment holds (retried); null when the last run succeeded or none ran"),
    order_split: orderSplitOutput
      .nullable()
      .describe(
        "the split of the preorder items for the offers' shipping.fulfillment.split (null: no split offer): into their own fulfillment orders, into new orders (their platform ids and names; the preorder record stays on the original order), or handed to the split-order app",
      ),
    order_split_error: z.string().nullable().describe("the last failure of the split (retried); null when the last run succeeded or none ran"),
    market_id: z.string().nullable(),
    source_name: z
      .string()
      .nullable()
      .describe("where the platform says the order was placed: web (the online store), pos (the point of sale), shopify_draft_order, ...; null when it did not say"),
    retail_location_id: z.string().nullable().describe("the point of sale's location of an order placed there (a Location id); null otherwise"),
    offer_ids: z.array(z.string()),
    line_items: z.array(orderLineOutput),
    released_at: timestampOutput.nullable(),
    cancelled_at: timestampOutput.nullable(),
    cancelled_by: z.enum(["platform", "app"]).nullable(),
    balance_collection_requested_at: timestampOutput.nullable(),
    balance_due_at: timestampOutput.nullable().describe("when the remaining balance is due (the offer's payments.remaining_balance.due); null without a balance or a due date"),
    auto_collect: z
      .enum(["due_date", "on_fulfillment"])
      .nullable()
      .describe("how the balance is charged automatically (fixed when the order is first seen with a balance); null: collected by hand"),
    auto_collect_result: z
      .string()
      .nullable()
      .describe("what the last auto-collect run decided: `requested: job <id>`, or `skipped: <reason>`; null until it ran"),
    auto_collect_ran_at: timestampOutput.nullable().describe("when the last auto-collect run decided; null until it ran"),
    refunded_amount: money.describe("refunds recorded by the app so far (partial refunds add up)"),
    refunded_at: timestampOutput.nullable().describe("when everything paid was refunded (status refunded); null otherwise"),
    created_at: timestampOutput,
    updated_at: timestampOutput,
  })
  .describe("a preorder order");
