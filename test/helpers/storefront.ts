import { SHOP_ID } from "../../src/platform/emulator/ids.ts";
import type { Emulator } from "../../src/platform/emulator/index.ts";
import { SHIPPED_TRANSLATIONS } from "../../src/account/translations.ts";
import type { ShopStorefrontConfig } from "../../src/storefront/shop-config.ts";

/** Helpers of the storefront tests: the shop metafield the widget reads, and the emulator store's state. */

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K] };

/** The shop metafield as the service writes it with every setting at its default. */
export function defaultShopConfig(): ShopStorefrontConfig {
  return {
    version: 1,
    storefront: { show_badge_on_collection_pages: true, show_badge_on_product_pages: true, hide_dynamic_checkout_buttons: true },
    developer: { events_enabled: false, debug: false, selectors: { add_to_cart_button: null, price: null, product_form: null, collection_product_card: null } },
    back_in_stock: { channels: ["email"], opt_in_required: false },
    languages: { default_locale: "en", multi_language_enabled: false, product_translations_enabled: false, strings: { en: { ...SHIPPED_TRANSLATIONS.en } } },
    ad_pixel: { enabled: false },
  };
}

function merge<T>(base: T, patch: DeepPartial<T>): T {
  const out = { ...base } as Record<string, unknown>;
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    const current = out[key];
    out[key] = value !== null && typeof value === "object" && !Array.isArray(value) && current !== null && typeof current === "object" ? merge(current, value) : value;
  }
  return out as T;
}

/**
 * Puts the shop metafield (`$app:preorder` `shop`, src/storefront/shop-config.ts) on the emulator's
 * shop directly, in the shape the service writes: the defaults with `patch` over them.
 */
export function setShopConfig(emulator: Emulator, patch: DeepPartial<ShopStorefrontConfig> = {}): ShopStorefrontConfig {
  const config = merge(defaultShopConfig(), patch);
  emulator.store.putMetafield({ ownerType: "SHOP", ownerId: SHOP_ID, namespace: `app--${emulator.appId}--preorder`, key: "shop", type: "json", value: JSON.stringify(config) });
  return config;
}

/** Sets a variant's stock (at the first active location, nothing elsewhere) and its policy, directly on the store. */
export function setStock(emulator: Emulator, legacyId: number, available: number, policy: "DENY" | "CONTINUE" = "DENY"): void {
  const { store } = emulator;
  const variant = store.variant(legacyId);
  if (!variant) throw new Error(`no variant ${legacyId}`);
  variant.inventoryPolicy = policy;
  variant.tracked = true;
  const index = store.variantIndex(variant);
  store.activeLocations().forEach((location, n) => store.setAvailable(index, location, n === 0 ? available : 0));
}

/** The handle of the product of a variant. */
export function handleOf(emulator: Emulator, legacyId: number): string {
  const variant = emulator.store.variant(legacyId);
  if (!variant) throw new Error(`no variant ${legacyId}`);
  return emulator.store.productOf(variant).handle;
}
