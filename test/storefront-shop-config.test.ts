import { beforeAll, describe, expect, it } from "vitest";
import type { PlatformClient } from "../src/platform/client.ts";
import { getShopMetafield } from "../src/platform/operations/metafields.ts";
import { TRANSLATION_KEYS } from "../src/account/translations.ts";
import { shopConfigSyncKey } from "../src/storefront/enqueue.ts";
import type { ShopStorefrontConfig } from "../src/storefront/shop-config.ts";
import { invoke } from "./helpers/app.ts";
import { newOffer, offerCall } from "./helpers/offers.ts";
import { mirrorVariants, useSyncEnv } from "./helpers/offer-sync.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * The shop's storefront configuration metafield ($app:preorder.shop, decision 0203): each source
 * setting's change reaches its value on the platform (the emulator), a burst is one write, an
 * unchanged value is not sent, and a platform failure is retried and shown.
 */
const env = useSyncEnv({ products: 2, variantsPerProduct: 1, locations: 1, markets: 1, collections: 1 });
let client: PlatformClient;

beforeAll(async () => {
  client = await env.platform.clientFor(env.app.pool, env.shopId);
});

const call = async (method: string, path: string, body?: unknown) => {
  const answer = await invoke(env.app, method, path, { key: env.key, ...(body !== undefined ? { body } : {}) });
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  return answer;
};

async function queued(): Promise<{ attempts: number; last_error: string | null }[]> {
  const { rows } = await env.app.pool.query<{ attempts: number; last_error: string | null }>("select attempts, last_error from graphile_worker.jobs where key = $1", [
    shopConfigSyncKey(env.shopId),
  ]);
  return rows;
}

/** Waits until no write of the shop's configuration is queued or running (the worker runs). */
async function settled(): Promise<void> {
  await waitFor("the shop configuration write", async () => ((await queued()).length === 0 ? true : undefined));
}

async function metafield(): Promise<{ value: ShopStorefrontConfig; updatedAt: string } | null> {
  const { shopId, metafield: found } = await getShopMetafield(client, "$app:preorder", "shop");
  expect(shopId).toBe("gid://shopify/Shop/1");
  if (!found) return null;
  expect(found).toMatchObject({ type: "json", ownerType: "SHOP", namespace: `app--${env.emulator.appId}--preorder`, key: "shop" });
  return { value: JSON.parse(found.value) as ShopStorefrontConfig, updatedAt: found.updatedAt };
}

async function written(): Promise<ShopStorefrontConfig> {
  await settled();
  const found = await metafield();
  expect(found).not.toBeNull();
  return (found as { value: ShopStorefrontConfig }).value;
}

describe("the shop's storefront configuration metafield", () => {
  it("carries the preorder storefront settings and the developer storefront settings", async () => {
    await env.startWorker();
    await call("PATCH", "/preorders/settings", { storefront: { show_badge_on_collection_pages: false, hide_dynamic_checkout_buttons: false } });
    await call("PATCH", "/preorders/developer_settings", { storefront: { events_enabled: false, debug: true, selectors: { price: ".product__price", add_to_cart_button: "#buy" } } });
    const config = await written();
    expect(config.version).toBe(1);
    expect(config.storefront).toEqual({ show_badge_on_collection_pages: false, show_badge_on_product_pages: true, hide_dynamic_checkout_buttons: false });
    expect(config.developer).toEqual({
      events_enabled: false,
      debug: true,
      selectors: { add_to_cart_button: "#buy", price: ".product__price", product_form: null, collection_product_card: null },
    });
  });

  it("carries the back-in-stock channels and the consent rule", async () => {
    await env.startWorker();
    await call("PATCH", "/back_in_stock/settings/channels", { sms: { enabled: false } });
    await call("PATCH", "/back_in_stock/settings", { compliance: { opt_in_required: true } });
    const config = await written();
    expect(config.back_in_stock).toEqual({ channels: ["email"], opt_in_required: true });
  });

  it("carries the languages and every locale's strings, complete with the shipped texts", async () => {
    await env.startWorker();
    await env.app.pool.query("update shops set published_locales = '{en,fr,it}' where id = $1", [env.shopId]);
    await call("PATCH", "/account/translations/fr", { strings: { "widget.button_text": "Prévenez-moi" } });
    await call("PATCH", "/account/languages", { multi_language_enabled: true });
    const config = await written();
    expect(config.languages).toMatchObject({ default_locale: "en", multi_language_enabled: true, product_translations_enabled: false });
    expect(config.languages.strings.fr?.["widget.button_text"]).toBe("Prévenez-moi");
    expect(config.languages.strings.fr?.["widget.submit_button"]).toBe("Me prévenir");
    // it: published, no shipped texts: the default locale's (en) fill every key.
    expect(config.languages.strings.it?.["widget.submit_button"]).toBe("Notify me");
    for (const locale of ["en", "fr", "de", "es", "it"]) expect(Object.keys(config.languages.strings[locale] ?? {}).sort()).toEqual([...TRANSLATION_KEYS].sort());
  });

  it("carries the ad pixel switch", async () => {
    await env.startWorker();
    await call("PATCH", "/account/integrations", { ad_pixel: { enabled: true } });
    expect((await written()).ad_pixel).toEqual({ enabled: true });
  });

  it("carries the live offers' ids (the app embed's keys of their variant metafields), queued again when an offer is created, goes live or stops being live", async () => {
    await env.startWorker();
    await settled();
    const [variant] = await mirrorVariants(env);
    if (!variant) throw new Error("no variants");
    const offerStep = async (step: () => Promise<unknown>) => {
      await env.stopWorker();
      await step();
      expect(await queued()).toHaveLength(1);
      await env.startWorker();
      return (await written()).live_offer_ids;
    };
    let id = "";
    expect(
      await offerStep(async () => {
        id = await newOffer(env, { products: { variant_ids: [variant.legacy_id] } });
      }),
    ).not.toContain(id);
    expect(await offerStep(() => offerCall(env.app, env.key, "POST", id, "/enable"))).toContain(id);
    expect(await offerStep(() => offerCall(env.app, env.key, "POST", id, "/disable"))).not.toContain(id);
    expect(await offerStep(() => offerCall(env.app, env.key, "POST", id, "/enable"))).toContain(id);
    expect(await offerStep(() => offerCall(env.app, env.key, "DELETE", id))).not.toContain(id);
  });

  it("a burst of changes is one queued write, sent once, with the last value", async () => {
    await settled();
    await env.stopWorker();
    for (const debug of [false, true, false, true]) await call("PATCH", "/preorders/developer_settings", { storefront: { debug: !debug } });
    await call("PATCH", "/preorders/settings", { storefront: { show_badge_on_product_pages: false } });
    expect(await queued()).toHaveLength(1);
    const before = env.emulator.stats().requests;
    await env.startWorker();
    const config = await written();
    expect(config.developer.debug).toBe(false);
    expect(config.storefront.show_badge_on_product_pages).toBe(false);
    // One write: the shop's id and metafield read, then one metafieldsSet (the check above reads once more).
    expect(env.emulator.stats().requests - before).toBe(3);
  });

  it("a change that leaves the configuration as it was writes nothing", async () => {
    await env.startWorker();
    await call("PATCH", "/preorders/settings", { storefront: { show_badge_on_collection_pages: true } });
    await written();
    const before = await metafield();
    const requests = env.emulator.stats().requests;
    // Each queues a write (the same value; a customized text equal to the shipped one), which finds the digest unchanged.
    await call("PATCH", "/preorders/settings", { storefront: { show_badge_on_collection_pages: true } });
    await call("PATCH", "/account/translations/en", { strings: { "widget.button_text": "Notify me when available" } });
    await settled();
    expect(env.emulator.stats().requests).toBe(requests);
    expect((await metafield())?.updatedAt).toBe(before?.updatedAt);
  });

  it("a platform failure is recorded, shown in storefront_config and retried with backoff until the platform takes the value", async () => {
    await settled();
    await env.startWorker();
    env.emulator.setFaults({ errorRate: 1 });
    try {
      await call("PATCH", "/preorders/settings", { storefront: { hide_dynamic_checkout_buttons: true } });
      const failed = await waitFor("a failed attempt", async () => {
        const [job] = await queued();
        return job && job.attempts >= 1 && job.last_error !== null ? job : undefined;
      });
      expect(failed.last_error).toMatch(/failed after \d+ attempts/);
      const shown = await call("GET", "/preorders/developer_settings/storefront_config");
      const state = (shown.body as { shop_metafield: { last_error: string | null; last_error_at: string | null } }).shop_metafield;
      expect(state.last_error).toMatch(/failed after \d+ attempts/);
      expect(state.last_error_at).not.toBeNull();
    } finally {
      env.emulator.setFaults({});
    }
    const config = await waitFor("the retried write", async () => {
      const found = await metafield();
      return found?.value.storefront.hide_dynamic_checkout_buttons === true && (await queued()).length === 0 ? found.value : undefined;
    }, 30_000);
    expect(config.storefront.hide_dynamic_checkout_buttons).toBe(true);
    const shown = await call("GET", "/preorders/developer_settings/storefront_config");
    expect((shown.body as { shop_metafield: unknown }).shop_metafield).toMatchObject({ last_error: null, written_at: expect.any(String) as unknown });
  });

  it("a failure of a value the merchant then reverted is cleared once the platform is found current", async () => {
    await env.startWorker();
    await settled();
    const before = await metafield();
    const was = before?.value.storefront.show_badge_on_collection_pages ?? false;
    env.emulator.setFaults({ errorRate: 1 });
    try {
      await call("PATCH", "/preorders/settings", { storefront: { show_badge_on_collection_pages: !was } });
      await waitFor("a failed attempt", async () => {
        const [job] = await queued();
        return job && job.attempts >= 1 && job.last_error !== null ? true : undefined;
      });
    } finally {
      env.emulator.setFaults({});
    }
    // Back to what the platform holds: nothing to write, and nothing wrong any more.
    await call("PATCH", "/preorders/settings", { storefront: { show_badge_on_collection_pages: was } });
    await settled();
    const shown = await call("GET", "/preorders/developer_settings/storefront_config");
    expect((shown.body as { shop_metafield: unknown }).shop_metafield).toMatchObject({ last_error: null });
    expect((await metafield())?.value.storefront.show_badge_on_collection_pages).toBe(was);
  });

  it("bulk_sync_metafields writes it again after it was deleted on the platform behind the service's back", async () => {
    await env.startWorker();
    await settled();
    const { shopId } = await getShopMetafield(client, "$app:preorder", "shop");
    await client.request("mutation D($m: [MetafieldIdentifierInput!]!) { metafieldsDelete(metafields: $m) { userErrors { field message } } }", {
      m: [{ ownerId: shopId, namespace: "$app:preorder", key: "shop" }],
    });
    expect(await metafield()).toBeNull();
    await call("POST", "/preorders/product_variants/bulk_sync_metafields", {});
    const config = await waitFor("the rewritten metafield", async () => ((await queued()).length === 0 ? ((await metafield())?.value ?? undefined) : undefined));
    expect(config.version).toBe(1);
  });
});
