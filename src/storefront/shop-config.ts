/**
 * The shop-wide part of what the storefront widget needs, written by the service as one app-owned
 * json metafield on the shop (namespace `$app:preorder`, key `shop`) whenever one of its sources
 * changes, and read by the widget from the page (the theme renders it, as an app embed block
 * would). The per-offer part is the variant metafield of decision 0196 (`offer-<id>`).
 *
 * This file is the contract between the writer (the service) and the reader (the widget bundle,
 * which imports the type only): a field is added here first, then written, then read.
 */
export const SHOP_STOREFRONT_CONFIG_VERSION = 1;
export const SHOP_STOREFRONT_METAFIELD = { namespace: "$app:preorder", key: "shop", type: "json" } as const;

export type StorefrontStrings = Record<string, string>;

export interface ShopStorefrontConfig {
  version: typeof SHOP_STOREFRONT_CONFIG_VERSION;
  /** /preorders/settings `storefront.*` */
  storefront: {
    show_badge_on_collection_pages: boolean;
    show_badge_on_product_pages: boolean;
    hide_dynamic_checkout_buttons: boolean;
  };
  /** /preorders/developer_settings `storefront.*` */
  developer: {
    events_enabled: boolean;
    debug: boolean;
    selectors: {
      add_to_cart_button: string | null;
      price: string | null;
      product_form: string | null;
      collection_product_card: string | null;
    };
  };
  /** What the back-in-stock "notify me" form needs. */
  back_in_stock: {
    /** channels switched on in /back_in_stock/settings (a signup on another is refused) */
    channels: Array<"email" | "sms">;
    /** compliance.opt_in_required: the form shows the consent checkbox and requires it */
    opt_in_required: boolean;
  };
  /** /account/languages and /account/translations: the widget's labels by locale. */
  languages: {
    default_locale: string;
    multi_language_enabled: boolean;
    product_translations_enabled: boolean;
    /** every locale the shop has strings for, each complete (defaults filled in), keyed `widget.*` */
    strings: Record<string, StorefrontStrings>;
  };
  /** /account/integrations `ad_pixel.enabled`: the widget publishes signup events to the platform's customer events */
  ad_pixel: { enabled: boolean };
  /**
   * The ids of the shop's live offers (active, not deleted), oldest first: the keys `offer-<id>` of
   * the variant metafields the app embed reads (Liquid cannot list a namespace's keys; decision 0232).
   */
  live_offer_ids: string[];
}
