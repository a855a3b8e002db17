import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { createOffer, offerCall, seedCatalog } from "./helpers/offers.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ shop: "Lookup Shop" });
let otherKey: string;
/** A: custom [101], active. B: all but products tagged no-preorder, active. C: collection 1, draft. D: all but variant 102, disabled. */
const offers: Record<"A" | "B" | "C" | "D" | "deleted", string> = { A: "", B: "", C: "", D: "", deleted: "" };

beforeAll(async () => {
  ({ apiKey: otherKey } = await createShopWithKey(env.app.pool, "Other Shop"));
  await seedCatalog(env.app.pool, env.shopId);
  offers.A = (await createOffer(env.app, env.key, { name: "A", products: { variant_ids: [101] } })).id;
  offers.B = (await createOffer(env.app, env.key, { name: "B", products: { source: "all", exclusion_tag: "no-preorder" } })).id;
  offers.C = (await createOffer(env.app, env.key, { name: "C", products: { source: "collection", collection_id: "gid://shopify/Collection/1" } })).id;
  offers.D = (await createOffer(env.app, env.key, { name: "D", products: { source: "all", excluded_variant_ids: ["102"] } })).id;
  offers.deleted = (await createOffer(env.app, env.key, { name: "gone", products: { variant_ids: [101, 102, 201] } })).id;
  for (const id of [offers.A, offers.B]) expect((await offerCall(env.app, env.key, "POST", id, "/enable", {})).status).toBe(202);
  expect((await offerCall(env.app, env.key, "POST", offers.D, "/disable", {})).status).toBe(202);
  expect((await offerCall(env.app, env.key, "DELETE", offers.deleted)).status).toBe(202);
});

interface Match {
  offer_id: string;
  name: string;
  status: string;
  source: string;
  reason: string;
  in_variant_list: boolean;
}
interface Result {
  variant: { id: number; gid: string; product_id: string };
  offer: Match | null;
  reason: string;
  matches: Match[];
}

const lookup = (query: string, key = env.key) => invoke(env.app, "GET", `/preorders/offer_lookup?${query}`, { key });

describe("GET /preorders/offer_lookup", () => {
  it("answers the applying offer of a variant with its reason, and every matching live offer in priority order", async () => {
    const answer = await lookup("variant_id=101");
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const body = answer.body as { variant_id: string; product_id: null; results: Result[] };
    expect(body.variant_id).toBe("gid://shopify/ProductVariant/101");
    expect(body.product_id).toBeNull();
    expect(body.results).toHaveLength(1);
    const [result] = body.results;
    expect(result?.variant).toMatchObject({ id: 101, gid: "gid://shopify/ProductVariant/101", product_id: "gid://shopify/Product/1" });
    // Active first, then custom, collection, all; the deleted offer and B (product tagged no-preorder) are left out.
    expect(result?.matches.map((m) => m.name)).toEqual(["A", "C", "D"]);
    expect(result?.offer).toMatchObject({ offer_id: offers.A, status: "active", source: "custom", reason: "the variant is on the offer's custom list", in_variant_list: true });
    expect(result?.reason).toContain("it comes first of 3 matching offers");
    expect(result?.matches[1]).toMatchObject({ name: "C", status: "draft", reason: "the variant's product is in the offer's collection gid://shopify/Collection/1", in_variant_list: false });
  });

  it("matches an all offer through its exclusions, from the mirror, before any resolution ran", async () => {
    const body = (await lookup("variant_id=gid://shopify/ProductVariant/201")).body as { results: Result[] };
    const [result] = body.results;
    expect(result?.offer?.offer_id).toBe(offers.B);
    expect(result?.offer?.reason).toBe("the offer applies to all variants and does not exclude this one (its product is not tagged no-preorder)");
    expect(result?.offer?.in_variant_list).toBe(false);
    expect(result?.matches.map((m) => m.name)).toEqual(["B", "D"]);
  });

  it("answers no offer when only drafts or disabled offers take the variant", async () => {
    const [result] = ((await lookup("variant_id=102")).body as { results: Result[] }).results;
    expect(result?.offer).toBeNull();
    expect(result?.reason).toBe("no active offer takes this variant (the matching ones are drafts or disabled)");
    expect(result?.matches.map((m) => m.name)).toEqual(["C"]);
  });

  it("answers one result per variant of a product", async () => {
    const answer = await lookup("product_id=1");
    expect(answer.status).toBe(200);
    const body = answer.body as { product_id: string; results: Result[] };
    expect(body.product_id).toBe("gid://shopify/Product/1");
    expect(body.results.map((r) => [r.variant.id, r.offer?.name ?? null])).toEqual([
      [101, "A"],
      [102, null],
    ]);
  });

  it("refuses neither or both ids, malformed ids and unknown parameters (422)", async () => {
    expect((await lookup("")).body).toEqual({ errors: ["variant_id is required unless product_id is given"] });
    expect((await lookup("variant_id=101&product_id=1")).body).toEqual({ errors: ["product_id is not allowed with variant_id"] });
    const bad = await lookup("variant_id=abc");
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ errors: ["variant_id must be a numeric id or a gid://shopify/ProductVariant/<id>"] });
    expect((await lookup("variant=101")).body).toEqual({ errors: ["variant is not allowed", "variant_id is required unless product_id is given"] });
  });

  it("answers 404 for a variant or product not in the mirror, and for another shop", async () => {
    const missing = await lookup("variant_id=999");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ errors: ["Product variant not found: gid://shopify/ProductVariant/999"] });
    expect((await lookup("product_id=999")).body).toEqual({ errors: ["Product not found: gid://shopify/Product/999"] });
    expect((await lookup("variant_id=101", otherKey)).status).toBe(404);
  });
});
