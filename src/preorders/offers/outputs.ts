import { z } from "zod";
import { jobHandleOutput, pageOutput, timestampOutput } from "../../core/outputs.ts";
import { locale } from "../../core/schemas.ts";

/**
 * What the preorder offer actions answer, on the wire (`output` of their actions): the full offer
 * of the spec's "Preorder offer" table, each capability group as its GET, PATCH and named POSTs
 * answer it, the widget snapshot of set_button_text, and the products group with a job handle.
 *
 * These are a second, independent statement of the contract: the group schemas (the group files)
 * say what is stored and accepted, with defaults; these say what a client receives, every field
 * required and no other. The dispatcher checks every answer against them in tests, so a handler
 * that adds, drops or retypes a field fails its tests until this file says so too. This module
 * imports no group file (they import it), hence the enum values are written out here;
 * test/action-contract.test.ts checks them against the groups' own constants.
 */

const nullableTimestamp = timestampOutput.nullable();
const cssLength = z.string().describe("a CSS length such as 4px");
/**
 * A hex colour as answered: a pattern, not the request schemas' custom `hex-color` format, which
 * JSON Schema validators of MCP clients (the SDK's ajv) do not know and warn about.
 */
const hexColor = z
  .string()
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/)
  .describe("hex colour such as #1a2b3c");

// ---- widget ----

const buttonColorsOutput = z.strictObject({
  enabled: z.boolean().describe("true: the colours below; false: the theme's button colours (the stored ones are kept)"),
  text_color: hexColor,
  background_color: hexColor,
});

export const widgetOutput = z
  .strictObject({
    button: z.strictObject({ text: z.string(), colors: buttonColorsOutput }),
    disclaimer: z.strictObject({
      enabled: z.boolean(),
      text: z.string(),
      text_color: hexColor,
      background_color: hexColor,
      border_radius: cssLength,
    }),
    badge: z.strictObject({ enabled: z.boolean(), text: z.string(), text_color: hexColor, background_color: hexColor }),
  })
  .describe("The offer's storefront widget: the preorder button, the disclaimer and the badge");

/** The spec's answer of widget/set_button_text. */
export const widgetSnapshotOutput = z
  .strictObject({
    button: z.strictObject({ text: z.string(), colors: buttonColorsOutput }),
    disclaimer: z.strictObject({ enabled: z.boolean(), text: z.string() }),
    badge: z.strictObject({ enabled: z.boolean(), text: z.string() }),
  })
  .describe("Snapshot of the widget group: button (text, colors), disclaimer and badge (enabled, text)");

// ---- shipping ----

export const shippingOutput = z
  .strictObject({
    delivery: z.strictObject({
      applies_to_all_products: z.boolean(),
      type: z.enum(["asap", "on_date"]),
      days: z.int().min(0).nullable().describe("asap: expected within this many days (null: not said); on_date: null"),
      date: nullableTimestamp.describe("on_date: the delivery date; asap: null"),
    }),
    display: z.strictObject({
      show_details: z.boolean(),
      shipping_text: z.string(),
      shipping_line_item_property_enabled: z.boolean(),
    }),
    fulfillment: z.strictObject({
      hold: z.boolean().describe("holds the fulfillment orders that contain preorder items; never on together with a split"),
      hold_reason: z.string(),
      split: z.strictObject({
        enabled: z.boolean().describe("legacy toggle: true exactly when type is set"),
        type: z.enum(["fulfillments", "orders"]).nullable().describe("which split is on; null: none"),
        hold_fulfillments: z.boolean(),
        sequential_number: z.boolean(),
        per_variant: z.boolean().describe("one split order per variant instead of one per offer"),
        order_tag: z.string(),
        order_suffix: z.string(),
        transaction_gateway: z.string().nullable().describe("gateway recorded on split orders' transactions; null: the original order's"),
      }),
    }),
  })
  .describe("The offer's shipping settings");

// ---- payments ----

const paymentOptionOutput = z.strictObject({
  type: z.enum(["full", "deposit"]),
  enabled: z.boolean(),
  deposit_percent: z.number().nullable().describe("share paid at checkout; null for the full payment"),
  title: z.string(),
  description: z.string(),
});

export const paymentsOutput = z
  .strictObject({
    mode: z.enum(["full", "deposit", "choice"]).describe("derived from the enabled options: choice when the customer picks between both"),
    discount: z.strictObject({
      type: z.enum(["no_discount", "percentage", "fixed_amount"]).nullable(),
      value: z.number().nullable().describe("a percentage or an amount in the shop's currency; null without a discount"),
    }),
    options: z.array(paymentOptionOutput),
    remaining_balance: z.strictObject({
      auto_collect: z.boolean(),
      auto_collect_on_fulfillment: z.boolean(),
      due: z.strictObject({
        type: z.enum(["days_after_checkout", "on_date"]),
        days: z.int().min(0).nullable(),
        date: nullableTimestamp,
      }),
    }),
    show_partial_first: z.boolean(),
    billing_widget_text: z.string().nullable().describe("what the storefront widget says about billing (deposit now, remaining balance later); null: nothing"),
  })
  .describe("The offer's payment settings");

// ---- limits ----

const maxOutput = z.int().min(0).nullable().describe("null: no limit");

export const limitsOutput = z
  .strictObject({
    per_order: z.strictObject({ min: z.int().min(0), max: maxOutput }),
    per_customer: z.strictObject({ max: maxOutput }),
    total: z.strictObject({
      max: maxOutput,
      current_count: z.int().min(0).nullable().describe("units preordered so far, kept by the service"),
    }),
    display: z.strictObject({ show_remaining: z.boolean(), quantity_limit_text: z.string() }),
  })
  .describe("The offer's quantity limits");

// ---- checkout ----

export const checkoutOutput = z
  .strictObject({
    terms: z.strictObject({ enabled: z.boolean(), text: z.string(), disable_button_until_acknowledged: z.boolean() }),
    mixed_cart: z.strictObject({
      allowed: z.boolean().describe("false: preorder and in-stock items cannot be checked out together"),
      error_message: z.string(),
    }),
    order_tags: z.strictObject({ tags: z.array(z.string()).describe("tags given to orders containing this offer") }),
  })
  .describe("The offer's checkout settings");

// ---- inventory ----

export const inventoryOutput = z
  .strictObject({
    provider: z
      .enum(["platform", "app"])
      .describe("platform: the preorder button waits for the platform's stock to sell out; app: this service's count against limits.total is the offer's stock, and the button shows whatever the platform holds"),
    reservation: z.strictObject({
      timing: z.enum(["on_sale", "on_fulfillment"]).describe("on_sale: held at order time; on_fulfillment: taken when the order is fulfilled"),
    }),
    continue_selling: z.strictObject({ enabled: z.boolean(), auto_apply_to_new_variants: z.boolean() }),
  })
  .describe("The offer's inventory settings");

// ---- products ----

export const productsOutput = z
  .strictObject({
    source: z.enum(["all", "custom", "collection"]),
    custom: z.strictObject({ variant_ids_sample: z.array(z.int()).describe("up to 10 numeric variant ids of the offer") }),
    collection: z.strictObject({ id: z.string().nullable().describe("the collection of a collection source; null otherwise") }),
    exclusion_tag: z.string().nullable().describe("all and collection sources: products carrying this tag are left out"),
    excluded_variant_ids: z.array(z.string()),
  })
  .describe("The variants the offer applies to (the full list: GET /preorders/offers/{id}/variants)");

/** The handle of the resolution a change queued (null: none was, e.g. a custom source or no change of source). */
export const resolutionJobOutput = z
  .strictObject({ job_id: z.string(), status_url: z.string() })
  .nullable()
  .describe("The job resolving the offer's variants from the catalog mirror that this change queued (poll its status_url); null when none was queued");

/** Products changes that may queue a resolution: the products group as committed, and that resolution's handle. */
export const productsWithResolutionOutput = productsOutput
  .extend({ resolution_job: resolutionJobOutput })
  .describe("The products group as committed, with resolution_job: the handle of the job resolving the variants, or null when the change queued none");

/** products/set_source_to_all: the products group as committed, and the handle of the resolution job. */
export const productsWithJobOutput = productsOutput
  .extend(jobHandleOutput.shape)
  .describe("The products group as committed, with the handle (job_id, status_url) of the job resolving the variants");

// ---- markets ----

export const marketsOutput = z
  .strictObject({
    enabled: z.boolean().describe("false: the offer applies everywhere"),
    applies_to_all_markets: z.boolean(),
    market_ids: z.array(z.string()).describe("ids from GET /account/markets; empty when applies_to_all_markets"),
  })
  .describe("Where the offer applies");

// ---- countdown ----

export const countdownOutput = z
  .strictObject({
    enabled: z.boolean(),
    mode: z.enum(["to_schedule_end", "to_custom_date"]),
    format: z.string().describe("units d, h, m, s in that order, colon separated, such as dd:hh:mm:ss"),
    text: z.string(),
    custom_end_date: nullableTimestamp.describe("the end of a to_custom_date countdown; null in the other mode"),
    style: z.strictObject({
      type: z.enum(["inline", "banner", "boxed"]),
      text_color: hexColor,
      background_color: hexColor,
      border_radius: cssLength,
    }),
  })
  .describe("The offer's countdown configuration");

// ---- integrations ----

export const integrationsOutput = z
  .strictObject({
    pos: z.strictObject({ enabled: z.boolean(), skip_inventory_check: z.boolean() }),
    b2b: z.strictObject({ enabled: z.boolean() }),
  })
  .describe("Point of sale and B2B checkouts");

// ---- translations ----

export const translationsOutput = z
  .strictObject({
    default_locale: locale.describe("the language the offer's own texts are written in"),
    locales: z.array(locale).describe("the other locales the texts are translated into"),
    fields: z.array(z.string()).describe("translated field paths such as widget.button.text"),
    translations: z.record(z.string(), z.record(z.string(), z.string())).describe("locale -> field path -> text"),
  })
  .describe("Translations of the offer's storefront texts");

// ---- advanced ----

export const advancedOutput = z
  .strictObject({
    use_platform_selling_plan: z.boolean().describe("the offer is a selling plan group on the platform (deposits need it)"),
    custom_css: z.string(),
    button_text_overrides: z
      .strictObject({
        before_launch: z.string().nullable(),
        after_launch: z.string().nullable(),
        out_of_stock: z.string().nullable(),
      })
      .describe("the button's text per display state; null: widget.button.text"),
  })
  .describe("The offer's advanced settings");

// ---- the offer ----

export const offerOutput = z
  .strictObject({
    id: z.string(),
    name: z.string().describe("shown to customers"),
    internal_name: z.string().describe("for the merchant"),
    status: z.enum(["draft", "active", "disabled"]),
    created_at: timestampOutput,
    updated_at: timestampOutput,
    variants: z.strictObject({
      count: z.int().min(0),
      url: z.string().describe("path of the offer's variant list"),
    }),
    schedule: z
      .strictObject({ enable_at: nullableTimestamp, disable_at: nullableTimestamp })
      .describe("when the worker enables and disables the offer (POST /preorders/offers/{id}/schedule); null: not scheduled"),
    products: productsOutput,
    widget: widgetOutput,
    shipping: shippingOutput,
    payments: paymentsOutput,
    limits: limitsOutput,
    checkout: checkoutOutput,
    inventory: inventoryOutput,
    markets: marketsOutput,
    countdown: countdownOutput,
    integrations: integrationsOutput,
    translations: translationsOutput,
    advanced: advancedOutput,
    sync: z
      .strictObject({
        status: z.enum(["pending", "synced", "failed", "draft"]).describe("draft: nothing is on the platform while the offer is a draft"),
        last_error: z.string().nullable(),
        last_event: z.string().nullable().describe("the last thing a sync did that needs telling"),
        platform_selling_plan_group_id: z.string().nullable(),
      })
      .describe("the offer's sync to the store platform"),
  })
  .describe("A preorder offer in full");

export const offerPageOutput = pageOutput("offers", offerOutput);

/** POST /preorders/offers: the offer, and the handle of the resolution its all or collection source queued (null for custom). */
export const offerCreatedOutput = offerOutput.extend({ resolution_job: resolutionJobOutput });

export const offerDeletedOutput = z.strictObject({ id: z.string(), deleted_at: timestampOutput });

// ---- legacy v1 ----

const v1Timestamp = timestampOutput.nullable();

/** What v1's POST /preorders answers (201): the created plan in v1's field names, read back from the offer. */
export const sellingPlanV1Output = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    internal_name: z.string(),
    enabled: z.boolean(),
    billing_type: z.enum(["time_after_checkout", "exact_time"]),
    billing_time: v1Timestamp,
    billing_interval_days: z.int().nullable(),
    billing_checkout_charge_type: z.enum(["percentage"]),
    billing_checkout_charge_percentage: z.number(),
    billing_title: z.string().nullable(),
    billing_description: z.string().nullable(),
    pricing_type: z.enum(["no_discount", "percentage", "fixed_amount"]),
    pricing_percentage: z.number().nullable(),
    pricing_fixed_amount: z.number().nullable(),
    auto_collect_remaining_payment: z.boolean(),
    show_partial_payment_first: z.boolean(),
    delivery_type: z.enum(["asap", "exact_time"]),
    delivery_time: v1Timestamp,
    delivery_interval_days: z.int().nullable(),
    shipping_text: z.string(),
    line_item_properties_enabled: z.boolean(),
    split_orders_enabled: z.boolean(),
    split_fulfillments_enabled: z.boolean(),
    hold_fulfillments_enabled: z.boolean(),
    split_orders_per_variant: z.boolean(),
    hold_reason_note: z.string(),
    preorder_button_text: z.string(),
    preorder_button_text_color: hexColor.nullable(),
    preorder_button_background_color: hexColor.nullable(),
    preorder_badge_enabled: z.boolean(),
    preorder_badge_text: z.string(),
    preorder_badge_text_color: hexColor,
    preorder_badge_background_color: hexColor,
    product_variants_source: z.enum(["all", "custom", "collection"]),
    collection_id: z.string().nullable(),
    markets_enabled: z.boolean(),
    market_ids: z.array(z.string()),
    require_preorder_acknowledgement: z.boolean(),
    terms_text: z.string(),
    allow_mixed_cart: z.boolean(),
    mixed_cart_error_message: z.string(),
    order_tags: z.array(z.string()),
    quantity_limit_text: z.string(),
    min_quantity_per_order: z.int(),
    max_quantity_per_order: z.int().nullable(),
    inventory_reservation: z.enum(["on_sale", "on_fulfillment"]),
    inventory_provider: z.enum(["platform", "app"]),
    use_platform_selling_plan: z.boolean(),
    selling_plan_product_variants_count: z.int().min(0),
    platform_selling_plan_id: z.string().nullable(),
    platform_selling_plan_group_id: z.string().nullable(),
    shop_id: z.string(),
    created_at: timestampOutput,
    updated_at: timestampOutput,
    ongoing_job: z.boolean(),
    platform_variant_ids: z.array(z.int()),
    market_id: z.string().nullable(),
    deleted_at: v1Timestamp,
  })
  .describe("The created selling plan, in v1's fields");
