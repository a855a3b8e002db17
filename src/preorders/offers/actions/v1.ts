import { z } from "zod";
import { type ActionContext, defineAction } from "../../../core/action.ts";
import { ApiError, type Issue, fieldIssue, issueText, unprocessable } from "../../../core/errors.ts";
import { hexColor, isoTimestamp, notBlank } from "../../../core/schemas.ts";
import type { DeepPartial } from "../../../core/deep-partial.ts";
import { type GroupKey, type OfferRow, OfferState, label, longText, platformTag, requiredLabel } from "../model.ts";
import { type ProductsCreate, createOffer } from "./offers.ts";
import { type PaymentOption, type Payments, advancedGroup, paymentsGroup, shippingGroup } from "../groups/plan-groups.ts";
import { checkoutGroup } from "../groups/checkout.ts";
import { inventoryGroup } from "../groups/inventory.ts";
import { limitsGroup } from "../groups/limits.ts";
import { marketsGroup } from "../groups/markets.ts";
import { variantRefs } from "./products.ts";
import { widgetGroup } from "../groups/widget.ts";
import { sellingPlanV1Output } from "../outputs.ts";

/**
 * Legacy v1: `POST /api/v1/external/preorders` with `{ "selling_plan": {...} }` creates the same
 * offer v2 reads. Each v1 field maps onto one setting of a capability group; the v1 rules are
 * checked in v1's words first, then the offer's own rules as for any create. Errors carry issues
 * whose paths are v1 field names: the v1 adapter (src/http/v1.ts) turns them into
 * `{ "errors": { "<field>": ["<message>"] } }`.
 */

const count = z.int({ error: (issue) => (issue.code === "invalid_type" ? "must be an integer" : undefined) }).min(0);

const sellingPlanSchema = z.strictObject({
  name: notBlank(label),
  internal_name: label.optional(),
  enabled: z.boolean().optional(),
  // payments
  billing_type: z.enum(["time_after_checkout", "exact_time"]).optional(),
  billing_time: isoTimestamp.optional(),
  billing_interval_days: count.optional(),
  billing_checkout_charge_type: z.enum(["percentage"]).optional(),
  billing_checkout_charge_percentage: z.number().min(1).max(100).optional(),
  billing_title: requiredLabel.optional(),
  billing_description: longText.optional(),
  pricing_type: z.enum(["no_discount", "percentage", "fixed_amount"]).optional(),
  pricing_percentage: z.number().gt(0).max(100).optional(),
  pricing_fixed_amount: z.number().gt(0).optional(),
  auto_collect_remaining_payment: z.boolean().optional(),
  show_partial_payment_first: z.boolean().optional(),
  // delivery and shipping
  delivery_type: z.enum(["asap", "exact_time"]).optional(),
  delivery_time: isoTimestamp.optional(),
  delivery_interval_days: count.optional(),
  shipping_text: longText.optional(),
  line_item_properties_enabled: z.boolean().optional(),
  split_orders_enabled: z.boolean().optional(),
  split_fulfillments_enabled: z.boolean().optional(),
  hold_fulfillments_enabled: z.boolean().optional(),
  split_orders_per_variant: z.boolean().optional(),
  hold_reason_note: label.optional(),
  // widget
  preorder_button_text: requiredLabel.optional(),
  preorder_button_text_color: hexColor.optional(),
  preorder_button_background_color: hexColor.optional(),
  preorder_badge_enabled: z.boolean().optional(),
  preorder_badge_text: label.optional(),
  preorder_badge_text_color: hexColor.optional(),
  preorder_badge_background_color: hexColor.optional(),
  // products
  product_variants_source: z.enum(["custom", "all", "collection"]).optional(),
  platform_variant_ids: variantRefs.optional(),
  collection_id: z.string().min(1).max(255).optional(),
  // markets
  markets_enabled: z.boolean().optional(),
  market_ids: z.array(z.string().min(1).max(255)).max(250).optional(),
  // checkout
  require_preorder_acknowledgement: z.boolean().optional(),
  terms_text: longText.optional(),
  allow_mixed_cart: z.boolean().optional(),
  mixed_cart_error_message: longText.optional(),
  order_tags: z.array(platformTag).max(250).optional(),
  // limits and inventory
  quantity_limit_text: label.optional(),
  min_quantity_per_order: count.optional(),
  max_quantity_per_order: count.optional(),
  inventory_reservation: z.enum(["on_sale", "on_fulfillment"]).optional(),
  inventory_provider: z.enum(["platform", "app"]).optional(),
  use_platform_selling_plan: z.boolean().optional(),
});

type SellingPlanInput = z.output<typeof sellingPlanSchema>;

/** The split and hold flags, in the spec's order, which is their precedence (decision 0250). */
const EXCLUSIVE_FLAGS = ["split_orders_enabled", "split_fulfillments_enabled", "hold_fulfillments_enabled"] as const;

/**
 * Only one of the split and hold flags can be on, and turning one on turns the others off (the
 * spec): a body with several on keeps the first in the spec's order and turns the rest off. A JSON
 * object's keys have no order a client can rely on, so which came last cannot decide (decision 0250).
 */
function withOneSplitFlag(plan: SellingPlanInput): SellingPlanInput {
  const first = EXCLUSIVE_FLAGS.find((flag) => plan[flag] === true);
  if (first === undefined) return plan;
  const off = Object.fromEntries(EXCLUSIVE_FLAGS.filter((flag) => flag !== first && plan[flag] === true).map((flag) => [flag, false]));
  return { ...plan, ...off };
}

/** The v1 rules, in v1's field names. */
function v1Violations(plan: SellingPlanInput): Issue[] {
  const violations: Issue[] = [];
  if (plan.markets_enabled === true && (plan.market_ids?.length ?? 0) === 0) violations.push(fieldIssue("market_ids", "is required when markets_enabled is true"));
  if (plan.split_fulfillments_enabled === true && plan.delivery_type === "exact_time") {
    violations.push(fieldIssue("split_fulfillments_enabled", "needs delivery_type asap"));
  }
  if (plan.delivery_type === "exact_time" && plan.delivery_time === undefined) violations.push(fieldIssue("delivery_time", "is required when delivery_type is exact_time"));
  if (plan.billing_type === "exact_time" && plan.billing_time === undefined) violations.push(fieldIssue("billing_time", "is required when billing_type is exact_time"));
  if (plan.pricing_type === "percentage" && plan.pricing_percentage === undefined) violations.push(fieldIssue("pricing_percentage", "is required when pricing_type is percentage"));
  if (plan.pricing_type === "fixed_amount" && plan.pricing_fixed_amount === undefined) {
    violations.push(fieldIssue("pricing_fixed_amount", "is required when pricing_type is fixed_amount"));
  }
  const deposit = plan.billing_checkout_charge_percentage !== undefined && plan.billing_checkout_charge_percentage < 100;
  if (deposit && plan.split_orders_enabled === true) {
    violations.push(fieldIssue("billing_checkout_charge_percentage", "is not available while split_orders_enabled is true: split orders turn off use_platform_selling_plan, and deposits need it"));
  } else if (deposit && plan.use_platform_selling_plan === false) {
    violations.push(fieldIssue("billing_checkout_charge_percentage", "is not available while use_platform_selling_plan is false: deposits need it"));
  }
  const source = plan.product_variants_source ?? "custom";
  if (source === "collection" && plan.collection_id === undefined) violations.push(fieldIssue("collection_id", "is required when product_variants_source is collection"));
  if (source !== "collection" && plan.collection_id !== undefined) violations.push(fieldIssue("collection_id", "is not allowed unless product_variants_source is collection"));
  if (source !== "custom" && plan.platform_variant_ids !== undefined) violations.push(fieldIssue("platform_variant_ids", "is not allowed unless product_variants_source is custom"));
  return violations;
}

/** Drops the keys whose value is undefined, so that a deep partial carries only what was set. */
function defined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function paymentOptions(plan: SellingPlanInput): PaymentOption[] | undefined {
  const percent = plan.billing_checkout_charge_percentage;
  if (percent === undefined && plan.billing_title === undefined && plan.billing_description === undefined) return undefined;
  const defaults = paymentsGroup.defaults().options;
  const deposit = percent !== undefined && percent < 100;
  const copied = deposit ? "deposit" : "full";
  return defaults.map((option) => ({
    ...option,
    enabled: option.type === "deposit" ? deposit : !deposit,
    ...(option.type === "deposit" && deposit ? { deposit_percent: percent } : {}),
    ...(option.type === copied ? defined({ title: plan.billing_title, description: plan.billing_description }) : {}),
  }));
}

/** The v2 create of a v1 selling plan: each group's deep partial. */
function toGroups(plan: SellingPlanInput): Partial<Record<GroupKey, unknown>> {
  const splitType = plan.split_orders_enabled ? "orders" : plan.split_fulfillments_enabled ? "fulfillments" : undefined;
  const discountValue = plan.pricing_type === "percentage" ? plan.pricing_percentage : plan.pricing_type === "fixed_amount" ? plan.pricing_fixed_amount : undefined;
  const options = paymentOptions(plan);
  const payments: DeepPartial<Payments> = defined({
    discount: plan.pricing_type !== undefined ? defined({ type: plan.pricing_type, value: discountValue }) : undefined,
    remaining_balance: defined({
      auto_collect: plan.auto_collect_remaining_payment,
      due: defined({
        type: plan.billing_type === undefined ? undefined : plan.billing_type === "exact_time" ? ("on_date" as const) : ("days_after_checkout" as const),
        date: plan.billing_time,
        days: plan.billing_interval_days,
      }),
    }),
    show_partial_first: plan.show_partial_payment_first,
    ...(options ? { options } : {}),
  });
  const buttonColors = plan.preorder_button_text_color !== undefined || plan.preorder_button_background_color !== undefined;
  return {
    widget: {
      button: defined({
        text: plan.preorder_button_text,
        colors: buttonColors
          ? defined({ enabled: true, text_color: plan.preorder_button_text_color, background_color: plan.preorder_button_background_color })
          : undefined,
      }),
      badge: defined({
        enabled: plan.preorder_badge_enabled,
        text: plan.preorder_badge_text,
        text_color: plan.preorder_badge_text_color,
        background_color: plan.preorder_badge_background_color,
      }),
    },
    shipping: {
      delivery: defined({
        type: plan.delivery_type === undefined ? undefined : plan.delivery_type === "exact_time" ? "on_date" : "asap",
        date: plan.delivery_time,
        days: plan.delivery_interval_days,
      }),
      display: defined({ shipping_text: plan.shipping_text, shipping_line_item_property_enabled: plan.line_item_properties_enabled }),
      fulfillment: defined({
        hold: plan.hold_fulfillments_enabled,
        hold_reason: plan.hold_reason_note,
        split: defined({ type: splitType, per_variant: plan.split_orders_per_variant }),
      }),
    },
    payments,
    limits: {
      per_order: defined({ min: plan.min_quantity_per_order, max: plan.max_quantity_per_order }),
      display: defined({ quantity_limit_text: plan.quantity_limit_text }),
    },
    checkout: {
      terms: defined({
        enabled: plan.require_preorder_acknowledgement,
        disable_button_until_acknowledged: plan.require_preorder_acknowledgement,
        text: plan.terms_text,
      }),
      mixed_cart: defined({ allowed: plan.allow_mixed_cart, error_message: plan.mixed_cart_error_message }),
      order_tags: defined({ tags: plan.order_tags }),
    },
    inventory: defined({ provider: plan.inventory_provider, reservation: defined({ timing: plan.inventory_reservation }) }),
    markets:
      plan.markets_enabled === undefined && plan.market_ids === undefined
        ? {}
        : defined({ enabled: plan.markets_enabled, applies_to_all_markets: plan.markets_enabled ? false : undefined, market_ids: plan.market_ids }),
    // split into orders turns use_platform_selling_plan off (the shipping group's effect), whatever was sent
    advanced: defined({ use_platform_selling_plan: plan.split_orders_enabled ? undefined : plan.use_platform_selling_plan }),
  };
}

/** Where a v2 message's field lands in v1: the v1 field that set it, else `base`. */
const V1_FIELDS: [string, string][] = [
  ["name", "name"],
  ["internal_name", "internal_name"],
  ["products.variant_ids", "platform_variant_ids"],
  ["products.collection_id", "collection_id"],
  ["markets.market_ids", "market_ids"],
  ["markets", "markets_enabled"],
  ["limits.per_order.min", "min_quantity_per_order"],
  ["limits.per_order.max", "max_quantity_per_order"],
  ["shipping.delivery.date", "delivery_time"],
  ["shipping.delivery", "delivery_type"],
  ["shipping.fulfillment.hold", "hold_fulfillments_enabled"],
  ["shipping.fulfillment.split", "split_fulfillments_enabled"],
  ["payments.discount", "pricing_type"],
  ["payments.remaining_balance.due", "billing_type"],
  ["payments.options", "billing_checkout_charge_percentage"],
  ["widget.badge", "preorder_badge_text"],
  ["checkout.terms", "terms_text"],
  ["checkout.mixed_cart", "mixed_cart_error_message"],
  ["advanced.use_platform_selling_plan", "use_platform_selling_plan"],
];

/** A v2 issue of the create under the v1 field that set it; one no v1 field set goes to `base`, naming its v2 field. */
function toV1Issue(issue: Issue): Issue {
  const match = V1_FIELDS.find(([prefix]) => issue.path === prefix || issue.path.startsWith(`${prefix}.`));
  return match ? fieldIssue(match[1], issue.message) : fieldIssue("base", issueText(issue));
}

/** The created plan in v1's fields, read back from the offer as v2 stores it. */
async function presentSellingPlan(ctx: ActionContext, row: OfferRow): Promise<Record<string, unknown>> {
  const offer = new OfferState(row);
  const widget = offer.get(widgetGroup);
  const shipping = offer.get(shippingGroup);
  const payments = offer.get(paymentsGroup);
  const limits = offer.get(limitsGroup);
  const checkout = offer.get(checkoutGroup);
  const inventory = offer.get(inventoryGroup);
  const markets = offer.get(marketsGroup);
  const advanced = offer.get(advancedGroup);
  const { rows } = await ctx.db.query<{ legacy_id: string }>("select legacy_id::text from preorder_offer_variants where offer_id = $1 order by legacy_id", [row.id]);
  const deposit = payments.options.find((o) => o.type === "deposit" && o.enabled);
  const copied = deposit ?? payments.options.find((o) => o.type === "full");
  const due = payments.remaining_balance.due;
  const discount = payments.discount;
  return {
    id: row.id,
    name: row.name,
    internal_name: row.internal_name,
    enabled: row.status === "active",
    billing_type: due.type === "on_date" ? "exact_time" : "time_after_checkout",
    billing_time: due.date,
    billing_interval_days: due.days,
    billing_checkout_charge_type: "percentage",
    billing_checkout_charge_percentage: deposit?.deposit_percent ?? 100,
    billing_title: copied?.title ?? null,
    billing_description: copied?.description ?? null,
    pricing_type: discount.type ?? "no_discount",
    pricing_percentage: discount.type === "percentage" ? discount.value : null,
    pricing_fixed_amount: discount.type === "fixed_amount" ? discount.value : null,
    auto_collect_remaining_payment: payments.remaining_balance.auto_collect,
    show_partial_payment_first: payments.show_partial_first,
    delivery_type: shipping.delivery.type === "on_date" ? "exact_time" : "asap",
    delivery_time: shipping.delivery.date,
    delivery_interval_days: shipping.delivery.days,
    shipping_text: shipping.display.shipping_text,
    line_item_properties_enabled: shipping.display.shipping_line_item_property_enabled,
    split_orders_enabled: shipping.fulfillment.split.type === "orders",
    split_fulfillments_enabled: shipping.fulfillment.split.type === "fulfillments",
    hold_fulfillments_enabled: shipping.fulfillment.hold,
    split_orders_per_variant: shipping.fulfillment.split.per_variant,
    hold_reason_note: shipping.fulfillment.hold_reason,
    preorder_button_text: widget.button.text,
    preorder_button_text_color: widget.button.colors.enabled ? widget.button.colors.text_color : null,
    preorder_button_background_color: widget.button.colors.enabled ? widget.button.colors.background_color : null,
    preorder_badge_enabled: widget.badge.enabled,
    preorder_badge_text: widget.badge.text,
    preorder_badge_text_color: widget.badge.text_color,
    preorder_badge_background_color: widget.badge.background_color,
    product_variants_source: row.products_source,
    collection_id: row.products_collection_id,
    markets_enabled: markets.enabled,
    market_ids: markets.market_ids,
    require_preorder_acknowledgement: checkout.terms.enabled,
    terms_text: checkout.terms.text,
    allow_mixed_cart: checkout.mixed_cart.allowed,
    mixed_cart_error_message: checkout.mixed_cart.error_message,
    order_tags: checkout.order_tags.tags,
    quantity_limit_text: limits.display.quantity_limit_text,
    min_quantity_per_order: limits.per_order.min,
    max_quantity_per_order: limits.per_order.max,
    inventory_reservation: inventory.reservation.timing,
    inventory_provider: inventory.provider,
    use_platform_selling_plan: advanced.use_platform_selling_plan,
    selling_plan_product_variants_count: rows.length,
    platform_selling_plan_id: row.platform_selling_plan_id,
    platform_selling_plan_group_id: row.platform_selling_plan_group_id,
    shop_id: row.shop_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    // true while a catalog resolution job runs for the offer (set_source_to_all, collections)
    ongoing_job: false,
    platform_variant_ids: rows.map((r) => Number(r.legacy_id)),
    market_id: markets.enabled ? (markets.market_ids[0] ?? null) : null,
    deleted_at: row.deleted_at?.toISOString() ?? null,
  };
}

const createSellingPlanV1 = defineAction({
  name: "v1.preorders.create",
  method: "POST",
  path: "/preorders",
  description:
    "Legacy v1: creates a preorder offer (a selling plan) from { selling_plan: {...} }; only the fields set are applied, the rest take defaults. Answers the created plan in v1's fields.",
  output: sellingPlanV1Output,
  kind: "write",
  input: z.strictObject({ selling_plan: sellingPlanSchema }),
  async handler(ctx, { input }) {
    const plan = withOneSplitFlag(input.selling_plan);
    const violations = v1Violations(plan);
    if (violations.length > 0) throw unprocessable(violations);
    const products: ProductsCreate = defined({
      source: plan.product_variants_source,
      variant_ids: plan.platform_variant_ids,
      collection_id: plan.collection_id,
    });
    try {
      const row = await createOffer(ctx, {
        name: plan.name,
        internal_name: plan.internal_name,
        status: plan.enabled ? "active" : "draft",
        products,
        groups: toGroups(plan),
      });
      return await presentSellingPlan(ctx, row);
    } catch (error) {
      if (error instanceof ApiError && error.code === "UNPROCESSABLE") throw unprocessable(error.issues.map(toV1Issue));
      throw error;
    }
  },
});

export const V1_ACTIONS = [createSellingPlanV1];
