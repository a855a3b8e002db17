import { beforeAll, describe, expect, it } from "vitest";
import type { PlatformClient } from "../src/platform/client.ts";
import { getOwnerMetafields } from "../src/platform/operations/metafields.ts";
import { STOREFRONT_NAMESPACE, storefrontKey } from "../src/preorders/sync/metafields.ts";
import { variantGid } from "./helpers/bis-seed.ts";
import { type Json, newOffer, offerCall } from "./helpers/offers.ts";
import { mirrorVariants, useSyncEnv, waitSynced } from "./helpers/offer-sync.ts";

// shipping.delivery.applies_to_all_products (decision 0208): true, every variant of the offer shows
// the offer's shipping details; false, only the variants given their own shipping text show any.
const env = useSyncEnv({ products: 3, variantsPerProduct: 1, locations: 1, markets: 1, collections: 1 });
let client: PlatformClient;
let legacy: number[];

beforeAll(async () => {
  client = await env.platform.clientFor(env.app.pool, env.shopId);
  legacy = (await mirrorVariants(env)).map((v) => v.legacy_id);
});

type Display = { show_details: boolean; shipping_text: string | null };

async function displays(offerId: string, variants: number[]): Promise<Display[]> {
  const found = await getOwnerMetafields(client, variants.map(variantGid), STOREFRONT_NAMESPACE, storefrontKey(offerId));
  return variants.map((v) => {
    const value = found.get(variantGid(v))?.value;
    if (!value) throw new Error(`no storefront metafield on variant ${v}`);
    const config = JSON.parse(value) as Json & { shipping: { display: Display } };
    return { show_details: config.shipping.display.show_details, shipping_text: config.shipping.display.shipping_text };
  });
}

describe("shipping.delivery.applies_to_all_products", () => {
  it("false: only the variants with their own shipping text show shipping details; true again: all show the offer's", async () => {
    await env.startWorker();
    const [a = 0, b = 0, c = 0] = legacy;
    const call = (method: string, id: string, suffix: string, body?: unknown) => offerCall(env.app, env.key, method, id, suffix, body);
    const id = await newOffer(env, { products: { variant_ids: [a, b, c] } }, { enable: true });
    expect((await call("PATCH", id, "/shipping", { display: { show_details: true, shipping_text: "Ships in May." } })).status).toBe(202);
    expect((await call("POST", id, `/variants/${b}/set_shipping_text`, { text: "This one ships in June." })).status).toBe(202);
    expect((await call("POST", id, `/variants/${c}/set_max_count`, { max_count: 3 })).status).toBe(202);
    await waitSynced(env, id);
    expect(await displays(id, [a, b, c])).toEqual([
      { show_details: true, shipping_text: "Ships in May." },
      { show_details: true, shipping_text: "This one ships in June." },
      { show_details: true, shipping_text: "Ships in May." },
    ]);

    expect((await call("PATCH", id, "/shipping", { delivery: { applies_to_all_products: false } })).status).toBe(202);
    await waitSynced(env, id);
    expect(await displays(id, [a, b, c])).toEqual([
      { show_details: false, shipping_text: null },
      { show_details: true, shipping_text: "This one ships in June." },
      { show_details: false, shipping_text: null },
    ]);

    expect((await call("PATCH", id, "/shipping", { delivery: { applies_to_all_products: true } })).status).toBe(202);
    await waitSynced(env, id);
    expect((await displays(id, [a, c])).map((d) => d.shipping_text)).toEqual(["Ships in May.", "Ships in May."]);
  });
});
