import { checkoutGroup } from "../offers/groups/checkout.ts";
import { countdownGroup } from "../offers/groups/countdown.ts";
import { integrationsGroup } from "../offers/groups/integrations.ts";
import { inventoryGroup } from "../offers/groups/inventory.ts";
import { limitsGroup } from "../offers/groups/limits.ts";
import { marketsGroup } from "../offers/groups/markets.ts";
import { advancedGroup, paymentsGroup, shippingGroup } from "../offers/groups/plan-groups.ts";
import { translationsGroup } from "../offers/groups/translations.ts";
import { widgetGroup } from "../offers/groups/widget.ts";
import type { OfferRow, OfferState } from "../offers/model.ts";

/**
 * What a storefront widget needs of an offer, as the json value of the offer's metafield on each
 * of its variants (decision 0196). Built from the offer's settings with their defaults, so two
 * offers with the same settings write the same text: the sync compares digests of it to skip
 * writes that change nothing. Keys are in a fixed order (JSON.stringify keeps insertion order).
 *
 * Left out on purpose: what changes without a change to the offer (limits.total.current_count
 * moves with every order, which does not sync the offer), what only the service or the platform
 * acts on (inventory but its provider, order tags, fulfillment and split, remaining balance collection), and
 * internal_name.
 */
export const STOREFRONT_CONFIG_VERSION = 1;

/**
 * `plans`: the offer's selling plans on the platform, one per enabled payment option (decision
 * 0212), first the one `selling_plan_id` names; each option carries its own plan's id, which the
 * widget adds to the cart when the shopper chooses that option. None: the offer is off the platform plan.
 */
export function storefrontConfig(
  offer: OfferState,
  row: Pick<OfferRow, "id" | "name" | "schedule_enable_at" | "schedule_disable_at">,
  plans: readonly { id: string; option: string }[],
): Record<string, unknown> {
  const widget = offer.get(widgetGroup);
  const advanced = offer.get(advancedGroup);
  const shipping = offer.get(shippingGroup);
  const payments = offer.get(paymentsGroup);
  const limits = offer.get(limitsGroup);
  const checkout = offer.get(checkoutGroup);
  const countdown = offer.get(countdownGroup);
  const translations = offer.get(translationsGroup);
  const enabledOptions = payments.options.filter((o) => o.enabled);
  return {
    version: STOREFRONT_CONFIG_VERSION,
    offer_id: row.id,
    name: row.name,
    selling_plan_id: plans[0]?.id ?? null,
    schedule: { starts_at: row.schedule_enable_at?.toISOString() ?? null, ends_at: row.schedule_disable_at?.toISOString() ?? null },
    widget: {
      button: widget.button,
      button_text_overrides: advanced.button_text_overrides,
      disclaimer: widget.disclaimer,
      badge: widget.badge,
    },
    shipping: { delivery: { type: shipping.delivery.type, days: shipping.delivery.days, date: shipping.delivery.date }, display: shipping.display },
    payments: {
      mode: enabledOptions.length > 1 ? "choice" : (enabledOptions[0]?.type ?? "full"),
      show_partial_first: payments.show_partial_first,
      billing_widget_text: payments.billing_widget_text,
      discount: payments.discount,
      options: enabledOptions.map((o) => ({
        type: o.type,
        deposit_percent: o.deposit_percent,
        title: o.title,
        description: o.description,
        selling_plan_id: plans.find((p) => p.option === o.type)?.id ?? null,
      })),
    },
    limits: { per_order: limits.per_order, per_customer: limits.per_customer, total: { max: limits.total.max }, display: limits.display },
    checkout: { terms: checkout.terms, mixed_cart: checkout.mixed_cart },
    countdown: {
      enabled: countdown.enabled,
      text: countdown.text,
      format: countdown.format,
      style: countdown.style,
      // to_schedule_end counts to the offer's scheduled end (null: none scheduled)
      ends_at: countdown.mode === "to_custom_date" ? countdown.custom_end_date : (row.schedule_disable_at?.toISOString() ?? null),
    },
    integrations: offer.get(integrationsGroup),
    translations: { default_locale: translations.default_locale, locales: translations.locales, translations: translations.translations },
    // platform: the preorder button waits for the platform's stock to sell out; app: it shows whatever the stock (decision 0205)
    inventory: { provider: offer.get(inventoryGroup).provider },
    markets: offer.get(marketsGroup),
    custom_css: advanced.custom_css,
  };
}

/**
 * The configuration of one variant of the offer: its own shipping text and per-order maximum
 * (preorder_offer_variant_overrides, decision 0203) in place of the offer's, so the widget reads
 * them where it reads the offer's and needs no rule of its own.
 */
export function withVariantOverride(config: Record<string, unknown>, override: { shipping_text: string | null; max_count: number | null }): Record<string, unknown> {
  const shipping = config.shipping as { delivery: unknown; display: Record<string, unknown> };
  const limits = config.limits as { per_order: Record<string, unknown> } & Record<string, unknown>;
  return {
    ...config,
    shipping: override.shipping_text === null ? shipping : { ...shipping, display: { ...shipping.display, shipping_text: override.shipping_text } },
    limits: override.max_count === null ? limits : { ...limits, per_order: { ...limits.per_order, max: override.max_count } },
  };
}

/**
 * The configuration of a variant the offer's delivery does not apply to
 * (`shipping.delivery.applies_to_all_products: false` and no shipping text of its own, decision
 * 0208): the widget shows it no shipping details rather than another product's.
 */
export function withoutOfferShipping(config: Record<string, unknown>): Record<string, unknown> {
  const shipping = config.shipping as { delivery: unknown; display: Record<string, unknown> };
  return { ...config, shipping: { ...shipping, display: { ...shipping.display, show_details: false, shipping_text: null } } };
}
