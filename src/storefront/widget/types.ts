/**
 * What the widget reads from the page. The theme (an app embed block) renders these as JSON
 * script tags; the values are the app's metafields as the service wrote them:
 *
 * - `script#preorder-app-embed`: `EmbedData` (the page's locale and market, the app proxy's path,
 *   and the shop metafield, `src/storefront/shop-config.ts`);
 * - `script[data-preorder-product]` (the product page's, which the app embed renders from
 *   `product.variants`, decision 0232; or one inside a collection card, where a theme renders it):
 *   `ProductData`, each variant with its offer metafields (decision 0196,
 *   `src/preorders/sync/storefront-config.ts`) keyed `offer-<id>`, those of the shop metafield's
 *   `live_offer_ids`;
 * - `script[data-preorder-collection]` on a collection page: `ProductData[]`, the collection's
 *   products, matched to the theme's cards by their links' `/products/<handle>`.
 */
import type { ShopStorefrontConfig } from "../shop-config.ts";

export type { ShopStorefrontConfig };

export interface EmbedData {
  /** The shop metafield's value; null where the service has not written it yet (defaults apply). */
  shop: ShopStorefrontConfig | null;
  /** The page's locale (`request.locale.iso_code`), e.g. `fr`. */
  locale: string;
  /** The market the page is shown in (`localization.market.id`), a gid or a number; null: unknown. */
  market_id: string | null;
  /** The currency the page's prices are in (`cart.currency.iso_code`, the market's presentment currency); null: unknown (no amounts shown). */
  currency: string | null;
  /** The shop's own currency (`shop.currency`): a fixed discount is in it. */
  shop_currency: string | null;
  /** Where the app proxy forwards to the service, e.g. `/apps/preorder`. */
  proxy_path: string;
  /** `product` or `collection` (`template.name`). */
  template: string;
}

export interface VariantData {
  id: number;
  title: string;
  /** In cents of the page's currency (Liquid's `variant.price`). */
  price: number;
  available: boolean;
  inventory_quantity: number;
  /** `deny` or `continue` */
  inventory_policy: string;
  /** The variant's metafields in the app's namespace, `offer-<id>` → offer configuration. */
  offers: Record<string, OfferConfig | undefined>;
  /** Other app metafields of the variant (per-variant overrides written beside the offers). */
  [extra: string]: unknown;
}

export interface ProductData {
  id: number;
  handle: string;
  variants: VariantData[];
}

type Text = string;
type Color = string;

/** The offer metafield's value, version 1 (decision 0196). */
export interface OfferConfig {
  version: number;
  offer_id: string;
  name: string;
  /** gid of the platform selling plan; null while the offer is detached from it. */
  selling_plan_id: string | null;
  schedule: { starts_at: string | null; ends_at: string | null };
  widget: {
    button: { text: Text; colors: { enabled: boolean; text_color: Color; background_color: Color } };
    button_text_overrides: { before_launch: Text | null; after_launch: Text | null; out_of_stock: Text | null };
    disclaimer: { enabled: boolean; text: Text; text_color: Color; background_color: Color; border_radius: string };
    badge: { enabled: boolean; text: Text; text_color: Color; background_color: Color };
  };
  shipping: {
    delivery: { type: string; days: number | null; date: string | null };
    /** shipping_text is a variant's own when it has one (decision 0203); null on a variant the offer's delivery leaves out (0208). */
    display: { show_details: boolean; shipping_text: Text | null; shipping_line_item_property_enabled: boolean };
  };
  payments: {
    mode: string;
    show_partial_first: boolean;
    discount: { type: string | null; value: number | null };
    /** selling_plan_id: the option's own plan (decision 0212); absent in a metafield written before, then the offer's. */
    options: { type: string; deposit_percent: number | null; title: Text; description: Text; selling_plan_id?: string | null }[];
    /** The billing widget's text (set_billing_widget_text, decision 0203). */
    billing_widget_text?: Text | null;
  };
  limits: {
    /** max is a variant's own max count when it has one (decision 0203). */
    per_order: { min: number; max: number | null };
    per_customer: { max: number | null };
    total: { max: number | null };
    display: { show_remaining: boolean; quantity_limit_text: Text };
  };
  checkout: {
    terms: { enabled: boolean; text: Text; disable_button_until_acknowledged: boolean };
    mixed_cart: { allowed: boolean; error_message: Text };
  };
  countdown: {
    enabled: boolean;
    text: Text;
    format: string;
    style: { type: string; text_color: Color; background_color: Color; border_radius: string };
    ends_at: string | null;
  };
  integrations: { pos: { enabled: boolean; skip_inventory_check: boolean }; b2b: { enabled: boolean } };
  translations: { default_locale: string; locales: string[]; translations: Record<string, Record<string, Text>> };
  markets: { enabled: boolean; applies_to_all_markets: boolean; market_ids: string[] };
  custom_css: string;
  /** What holds the button back (decision 0205): platform, its stock; app, the service's count against limits.total. */
  inventory?: { provider: string };
}
