import { SHIPPED_TRANSLATIONS } from "../../account/shipped-translations.ts";
import type { EmbedData, OfferConfig, ShopStorefrontConfig, VariantData } from "./types.ts";

/** The last segment of a gid (`gid://shopify/Market/7` → `7`), or the value itself. */
export function legacyId(id: string | number | null | undefined): string {
  return String(id ?? "").split("/").pop() ?? "";
}

/** Whether the offer takes orders in the page's market: markets off, all markets, or the page's listed. */
function inMarket(offer: OfferConfig, marketId: string | null): boolean {
  const markets = offer.markets;
  if (!markets.enabled || markets.applies_to_all_markets) return true;
  if (marketId === null) return false;
  const wanted = legacyId(marketId);
  return markets.market_ids.some((id) => legacyId(id) === wanted);
}

/**
 * Not ended. A start ahead does not shut the offer out: the service writes the metafield only for an
 * active offer, and before the start the button shows its before_launch text.
 */
function within(offer: OfferConfig, now: number): boolean {
  return offer.schedule.ends_at === null || Date.parse(offer.schedule.ends_at) > now;
}

/**
 * The offer the selected variant is on: among its offer metafields, those that have not ended and
 * take orders in the page's market; the lowest offer id when several overlap (stable across pages).
 */
function offersOf(variant: VariantData): OfferConfig[] {
  // A version this widget does not know is left alone rather than misread.
  return Object.values(variant.offers ?? {}).filter((o): o is OfferConfig => typeof o === "object" && o !== null && o.version === 1);
}

export function offerFor(variant: VariantData, embed: EmbedData, now: number): OfferConfig | undefined {
  const offers = offersOf(variant);
  const eligible = offers.filter((o) => within(o, now) && inMarket(o, embed.market_id));
  return eligible.sort((a, b) => a.offer_id.localeCompare(b.offer_id))[0];
}

/** Offers of the variant shut out by the page's market (for the debug log). */
export function offersOutsideMarket(variant: VariantData, embed: EmbedData): OfferConfig[] {
  return offersOf(variant).filter((o) => !inMarket(o, embed.market_id));
}

/**
 * Whether the variant is on preorder now (decision 0205): with the platform as the inventory
 * provider (the default), once the platform's stock is gone, the regular add to cart selling what
 * remains; with the app, whatever the platform holds (the offer's stock is its total limit).
 */
export function onPreorder(offer: OfferConfig, variant: VariantData): boolean {
  return offer.inventory?.provider === "app" || variant.inventory_quantity <= 0;
}

export type ButtonState = "before_launch" | "after_launch" | "out_of_stock";

/**
 * The button's display state: before_launch while the launch (the delivery date, or the offer's
 * start) is ahead; out_of_stock once launched with the variant sold out; after_launch otherwise.
 */
export function buttonState(offer: OfferConfig, variant: VariantData, now: number): ButtonState {
  const launch = offer.shipping.delivery.date ?? offer.schedule.starts_at;
  if (launch !== null && Date.parse(launch) > now) return "before_launch";
  if (variant.inventory_quantity <= 0) return "out_of_stock";
  return "after_launch";
}

/**
 * The locale the storefront texts are shown in: the page's when the shop shows several languages
 * (multi_language_enabled, as its messages do, decision 0201), otherwise the shop's default.
 * Without the shop metafield, the page's.
 */
export function displayLocale(embed: EmbedData): string {
  const languages = embed.shop?.languages;
  if (languages && !languages.multi_language_enabled) return languages.default_locale;
  return embed.locale;
}

/** An offer text in the locale (or its language), else the offer's own text. */
export function translate(offer: OfferConfig, locale: string, field: string, text: string): string {
  if (locale === offer.translations.default_locale) return text;
  const byLocale = offer.translations.translations;
  const language = locale.split("-")[0] ?? locale;
  return byLocale[locale]?.[field] ?? byLocale[language]?.[field] ?? text;
}

/** The shop's back-in-stock strings for the locale, its language, the default locale, else en. */
export function shopStrings(shop: ShopStorefrontConfig | null, locale: string): Record<string, string> {
  const strings = shop?.languages.strings ?? {};
  const language = locale.split("-")[0] ?? locale;
  return strings[locale] ?? strings[language] ?? strings[shop?.languages.default_locale ?? "en"] ?? strings.en ?? DEFAULT_STRINGS;
}

/** Used only when the page carries no shop metafield: the shipped English strings. */
const DEFAULT_STRINGS: Record<string, string> = SHIPPED_TRANSLATIONS.en ?? {};
