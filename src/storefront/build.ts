import type { Db } from "../core/db.ts";
import { loadAllTranslationStrings } from "../account/translations.ts";
import { loadBackInStockSettings } from "../back_in_stock/settings/settings.ts";
import { loadDeveloperSettings } from "../preorders/settings/developer.ts";
import { loadPreorderSettings } from "../preorders/settings/settings.ts";
import { loadAdPixel } from "../providers/integrations.ts";
import { SHOP_STOREFRONT_CONFIG_VERSION, type ShopStorefrontConfig } from "./shop-config.ts";

/** The offers whose variant metafields the sync keeps written (preorders/sync/run.ts, syncMetafields): active and not deleted. */
async function liveOfferIds(db: Db, shopId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    "select id from preorder_offers where shop_id = $1 and status = 'active' and deleted_at is null order by created_at, id",
    [shopId],
  );
  return rows.map((r) => r.id);
}

/**
 * The shop's storefront configuration (shop-config.ts) from its sources as they are now, each
 * merged over its defaults, so two shops with the same settings get the same text and the writer
 * compares digests of it. Keys in a fixed order (JSON.stringify keeps insertion order). This
 * module may read every area: it is the one place the storefront's shop-wide view is put together.
 */
export async function buildShopStorefrontConfig(db: Db, shopId: string): Promise<ShopStorefrontConfig> {
  const preorder = await loadPreorderSettings(db, shopId);
  const developer = await loadDeveloperSettings(db, shopId);
  const bis = await loadBackInStockSettings(db, shopId);
  const { rows } = await db.query<{ default_locale: string; multi_language_enabled: boolean; product_translations_enabled: boolean; published_locales: string[] }>(
    "select default_locale, multi_language_enabled, product_translations_enabled, published_locales from shops where id = $1",
    [shopId],
  );
  const shop = rows[0];
  if (!shop) throw new Error(`shop ${shopId} is missing`);
  // Published locales count only while the store sells in several languages (as /account/languages says).
  const strings = await loadAllTranslationStrings(db, shopId, shop.multi_language_enabled ? shop.published_locales : []);
  const { selectors } = developer.storefront;
  return {
    version: SHOP_STOREFRONT_CONFIG_VERSION,
    storefront: {
      show_badge_on_collection_pages: preorder.storefront.show_badge_on_collection_pages,
      show_badge_on_product_pages: preorder.storefront.show_badge_on_product_pages,
      hide_dynamic_checkout_buttons: preorder.storefront.hide_dynamic_checkout_buttons,
    },
    developer: {
      events_enabled: developer.storefront.events_enabled,
      debug: developer.storefront.debug,
      selectors: {
        add_to_cart_button: selectors.add_to_cart_button,
        price: selectors.price,
        product_form: selectors.product_form,
        collection_product_card: selectors.collection_product_card,
      },
    },
    back_in_stock: {
      channels: (["email", "sms"] as const).filter((c) => bis.channels[c].enabled),
      opt_in_required: bis.compliance.opt_in_required,
    },
    languages: {
      default_locale: shop.default_locale,
      multi_language_enabled: shop.multi_language_enabled,
      product_translations_enabled: shop.product_translations_enabled,
      strings,
    },
    ad_pixel: { enabled: (await loadAdPixel(db, shopId)).enabled },
    live_offer_ids: await liveOfferIds(db, shopId),
  };
}
