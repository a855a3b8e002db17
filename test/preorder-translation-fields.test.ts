import { beforeAll, describe, expect, it } from "vitest";
import type { PlatformClient } from "../src/platform/client.ts";
import { getOwnerMetafields } from "../src/platform/operations/metafields.ts";
import { STOREFRONT_NAMESPACE, storefrontKey } from "../src/preorders/sync/metafields.ts";
import { variantGid } from "./helpers/bis-seed.ts";
import { type Json, newOffer, offerCall } from "./helpers/offers.ts";
import { mirrorVariants, useSyncEnv, waitSynced } from "./helpers/offer-sync.ts";

// translations.fields: the offer's texts that are translated. A field taken off the list takes its
// translations off the storefront: the variant metafield the widget reads no longer carries them,
// so the shopper sees the offer's own text in every locale.
const env = useSyncEnv({ products: 2, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1 });
let client: PlatformClient;
let legacy: number[];

beforeAll(async () => {
  client = await env.platform.clientFor(env.app.pool, env.shopId);
  legacy = (await mirrorVariants(env)).map((v) => v.legacy_id);
});

async function translations(offerId: string): Promise<Json> {
  const found = await getOwnerMetafields(client, [variantGid(legacy[0] ?? 0)], STOREFRONT_NAMESPACE, storefrontKey(offerId));
  const value = found.get(variantGid(legacy[0] ?? 0))?.value;
  if (!value) throw new Error("no storefront metafield on the variant");
  return (JSON.parse(value) as { translations: Json }).translations;
}

describe("translations.fields", () => {
  it("decides which translated texts reach the storefront: a field taken off the list loses its translations in the variant metafield", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(0, 2) } }, { enable: true });
    await waitSynced(env, id);
    const both = { "widget.button.text": "Précommander", "checkout.terms.text": "Expédié en mars." };
    expect((await offerCall(env.app, env.key, "PATCH", id, "/translations", { locales: ["fr"], fields: ["widget.button.text", "checkout.terms.text"], translations: { fr: both } })).status).toBe(202);
    await waitSynced(env, id);
    expect(await translations(id)).toMatchObject({ locales: ["fr"], translations: { fr: both } });

    expect((await offerCall(env.app, env.key, "PATCH", id, "/translations", { fields: ["checkout.terms.text"] })).status).toBe(202);
    await waitSynced(env, id);
    expect(await translations(id)).toMatchObject({ translations: { fr: { "checkout.terms.text": "Expédié en mars." } } });
    expect((await translations(id)) as { translations: { fr: Record<string, string> } }).not.toHaveProperty(["translations", "fr", "widget.button.text"]);
  });
});
