import { SHOP_ID } from "../../src/platform/emulator/ids.ts";
import type { Emulator } from "../../src/platform/emulator/index.ts";
import { SHIPPED_TRANSLATIONS } from "../../src/account/translations.ts";
import { shopConfigSyncKey } from "../../src/storefront/enqueue.ts";
import type { ShopStorefrontConfig } from "../../src/storefront/shop-config.ts";
import type { TestEnv, TestEnvOptions } from "./fixture.ts";
import { type OfferSyncRow, waitSynced } from "./offer-sync.ts";
import { waitFor } from "./wait.ts";

/**
 * The online store the widget's browser tests shop in: a seeded emulator with webhooks and its
 * storefront (the app embed and proxy pointing at the service), the shop connected and synced.
 */
export const WIDGET_STORE: TestEnvOptions = {
  emulator: { seed: { products: 12, variantsPerProduct: 2, locations: 1, markets: 2, collections: 2 }, throttle: { maximumAvailable: 100_000, restoreRate: 100_000 }, webhooks: true },
  connect: "synced",
  storefront: true,
};

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
    live_offer_ids: [],
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

/** The shop metafield as it is on the emulator's shop now; null where none is written. */
export function shopConfigOf(emulator: Emulator): ShopStorefrontConfig | null {
  const found = emulator.store.metafield("SHOP", SHOP_ID, `app--${emulator.appId}--preorder`, "shop");
  return found ? (JSON.parse(found.value) as ShopStorefrontConfig) : null;
}

/**
 * Puts the shop metafield (`$app:preorder` `shop`, src/storefront/shop-config.ts) on the emulator's
 * shop directly, in the shape the service writes: the defaults with `patch` over them, and the
 * live offer ids of the value there now (what the service wrote, which the app embed needs to find
 * the offers' variant metafields) unless `patch` has its own.
 */
export function setShopConfig(emulator: Emulator, patch: DeepPartial<ShopStorefrontConfig> = {}): ShopStorefrontConfig {
  const config = merge({ ...defaultShopConfig(), live_offer_ids: shopConfigOf(emulator)?.live_offer_ids ?? [] }, patch);
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

/** Waits until the service has no write of the shop's storefront configuration queued or running (its worker runs). */
export async function shopConfigSettled(env: TestEnv): Promise<void> {
  await waitFor("the shop configuration write", async () => {
    const { rowCount } = await env.app.pool.query("select 1 from graphile_worker.jobs where key = $1", [shopConfigSyncKey(env.shopId)]);
    return rowCount === 0 ? true : undefined;
  });
}

/**
 * A storefront test's shop metafield beside the service's: `set` puts the test's settings on the
 * emulator (setShopConfig); `synced` waits for an offer's sync and for the service's write of the
 * shop configuration it queued (with the live offer ids the app embed reads, decision 0232), then
 * puts the test's settings back over the service's own, keeping the service's live offer ids.
 */
export function testShopConfig(env: TestEnv): { set(patch?: DeepPartial<ShopStorefrontConfig>): ShopStorefrontConfig; synced(offerId: string): Promise<OfferSyncRow> } {
  let last: DeepPartial<ShopStorefrontConfig> = {};
  return {
    set(patch = {}) {
      last = patch;
      return setShopConfig(env.emulator, patch);
    },
    async synced(offerId) {
      const row = await waitSynced(env, offerId);
      await shopConfigSettled(env);
      setShopConfig(env.emulator, last);
      return row;
    },
  };
}
