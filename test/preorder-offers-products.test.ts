import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { newOffer, offerCall, seedCatalog, syncState, variantGid } from "./helpers/offers.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv();

beforeAll(async () => {
  await seedCatalog(env.app.pool, env.shopId);
});

const action = (id: string, name: string, body: unknown = {}) => offerCall(env.app, env.key, "POST", id, `/products/${name}`, body);

interface Products {
  source: string;
  custom: { variant_ids_sample: number[] };
  collection: { id: string | null };
  exclusion_tag: string | null;
  excluded_variant_ids: string[];
}
const read = async (id: string) => (await offerCall(env.app, env.key, "GET", id, "/products")).body as Products;
const count = async (id: string) => ((await offerCall(env.app, env.key, "GET", id)).body as { variants: { count: number } }).variants.count;

async function storedVariants(id: string): Promise<string[]> {
  const { rows } = await env.app.pool.query<{ variant_id: string }>("select variant_id from preorder_offer_variants where offer_id = $1 order by legacy_id", [id]);
  return rows.map((r) => r.variant_id);
}

describe("products: custom source", () => {
  it("creates with variants given by numeric id or global id, and samples numeric ids", async () => {
    const id = await newOffer(env, { products: { variant_ids: [201, variantGid(101), "102", 101] } });
    expect(await read(id)).toEqual({
      source: "custom",
      custom: { variant_ids_sample: [101, 102, 201] },
      collection: { id: null },
      exclusion_tag: null,
      excluded_variant_ids: [],
    });
    expect(await count(id)).toBe(3);
    expect(await storedVariants(id)).toEqual([variantGid(101), variantGid(102), variantGid(201)]);
  });

  it("set_source_to_custom replaces the variants; add_variants and remove_variants edit them", async () => {
    const id = await newOffer(env, { products: { variant_ids: [101, 102] } });
    const replaced = await action(id, "set_source_to_custom", { variant_ids: [201] });
    expect(replaced.status).toBe(202);
    expect(replaced.body).toMatchObject({ source: "custom", custom: { variant_ids_sample: [201] } });
    const added = await action(id, "add_variants", { variant_ids: [101, 201] });
    expect(added.body).toMatchObject({ custom: { variant_ids_sample: [101, 201] } });
    const removed = await action(id, "remove_variants", { variant_ids: [variantGid(201), 999] });
    expect(removed.body).toMatchObject({ custom: { variant_ids_sample: [101] } });
    expect(await storedVariants(id)).toEqual([variantGid(101)]);
    expect(await count(id)).toBe(1);
  });

  it("validates variant ids against the shop's mirror and the caps", async () => {
    const id = await newOffer(env);
    expect((await action(id, "add_variants", { variant_ids: [101, "gid://shopify/ProductVariant/555", true] })).body).toEqual({
      errors: ["variant_ids.2 must be a numeric id or a gid://shopify/ProductVariant/<id>"],
    });
    expect((await action(id, "add_variants", { variant_ids: [101, "gid://shopify/ProductVariant/555"] })).body).toEqual({
      errors: ["variant_ids.1 must be a variant of this shop (unknown id gid://shopify/ProductVariant/555)"],
    });
    expect(await storedVariants(id)).toEqual([]);
    expect((await action(id, "add_variants", { variant_ids: [] })).body).toEqual({ errors: ["variant_ids must contain at least 1 items"] });
    expect((await action(id, "add_variants", { variant_ids: Array.from({ length: 1001 }, (_, i) => i + 1) })).body).toEqual({
      errors: ["variant_ids must contain at most 1000 items"],
    });
  });

  it("add_variants and remove_variants are refused (409) unless the source is custom", async () => {
    const id = await newOffer(env);
    await action(id, "set_source_to_all", { confirm: true });
    expect((await action(id, "add_variants", { variant_ids: [101] })).status).toBe(409);
    expect((await action(id, "remove_variants", { variant_ids: [101] })).status).toBe(409);
  });

  it("a change that changes nothing does not mark the offer for sync", async () => {
    const id = await newOffer(env, { products: { variant_ids: [101] } });
    await env.app.pool.query("update preorder_offers set sync_status = 'synced' where id = $1", [id]);
    const before = await syncState(env.app.pool, id);
    await action(id, "add_variants", { variant_ids: [101] });
    await action(id, "remove_variants", { variant_ids: [102] });
    await action(id, "set_source_to_custom", { variant_ids: [101] });
    expect(await syncState(env.app.pool, id)).toEqual(before);
    await action(id, "add_variants", { variant_ids: [102] });
    expect((await syncState(env.app.pool, id)).sync_status).toBe("pending");
  });
});

describe("products: all and collection sources", () => {
  it("set_source_to_all needs confirm: true (422 otherwise), then stores the exclusions", async () => {
    const id = await newOffer(env, { products: { variant_ids: [101] } });
    expect((await action(id, "set_source_to_all", {})).body).toEqual({ errors: ["confirm is required"] });
    const unconfirmed = await action(id, "set_source_to_all", { confirm: false, exclusion_tag: "no-preorder" });
    expect(unconfirmed).toMatchObject({ status: 422, body: { errors: ["confirm must be true"] } });
    expect((await read(id)).source).toBe("custom");

    const all = await action(id, "set_source_to_all", { confirm: true, exclusion_tag: "no-preorder", excluded_variant_ids: ["201", "201", variantGid(102)] });
    expect(all.status).toBe(202);
    expect(all.body).toMatchObject({
      source: "all",
      collection: { id: null },
      exclusion_tag: "no-preorder",
      excluded_variant_ids: [variantGid(201), variantGid(102)],
    });
    const { rows } = await env.app.pool.query("select products_source, products_exclusion_tag, products_excluded_variant_ids from preorder_offers where id = $1", [id]);
    expect(rows[0]).toEqual({ products_source: "all", products_exclusion_tag: "no-preorder", products_excluded_variant_ids: [variantGid(201), variantGid(102)] });
    // Any string was stored before, and one that is no variant id never matched a variant.
    expect((await action(id, "set_source_to_all", { confirm: true, excluded_variant_ids: [201, "variant-201"] })).body).toEqual({
      errors: ["excluded_variant_ids.1 must be a numeric id or a gid://shopify/ProductVariant/<id>"],
    });
  });

  it("PATCH products edits the exclusions only", async () => {
    const id = await newOffer(env);
    await action(id, "set_source_to_all", { confirm: true, exclusion_tag: "no-preorder" });
    const answer = await offerCall(env.app, env.key, "PATCH", id, "/products", { exclusion_tag: null, excluded_variant_ids: ["101"] });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ source: "all", exclusion_tag: null, excluded_variant_ids: [variantGid(101)] });
    expect((await offerCall(env.app, env.key, "PATCH", id, "/products", { source: "custom" })).body).toEqual({ errors: ["source is not allowed"] });
  });

  it("set_collection is refused (409) on a non-collection offer", async () => {
    const id = await newOffer(env);
    const refused = await action(id, "set_collection", { collection_id: "gid://shopify/Collection/1" });
    expect(refused.status).toBe(409);
    expect((await read(id)).collection.id).toBeNull();
  });

  it("set_source_to_collection, then set_collection changes the collection", async () => {
    const id = await newOffer(env);
    const collection = await action(id, "set_source_to_collection", { collection_id: "gid://shopify/Collection/1" });
    expect(collection.body).toMatchObject({ source: "collection", collection: { id: "gid://shopify/Collection/1" } });
    const changed = await action(id, "set_collection", { collection_id: "gid://shopify/Collection/2" });
    expect(changed.status).toBe(202);
    expect(changed.body).toMatchObject({ source: "collection", collection: { id: "gid://shopify/Collection/2" } });
    expect((await action(id, "set_collection", { collection_id: "gid://shopify/Collection/9" })).body).toEqual({
      errors: ["collection_id must be a collection of this shop"],
    });
    // leaving the collection source clears the collection
    expect((await action(id, "set_source_to_custom", { variant_ids: [] })).body).toMatchObject({ source: "custom", collection: { id: null } });
  });

  it("creates a collection offer directly", async () => {
    const id = await newOffer(env, { products: { source: "collection", collection_id: "gid://shopify/Collection/2" } });
    expect(await read(id)).toMatchObject({ source: "collection", collection: { id: "gid://shopify/Collection/2" } });
    const missing = await invoke(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "x", products: { source: "collection" } } });
    expect(missing.body).toEqual({ errors: ["products.collection_id is required when source is collection"] });
    const unknown = await invoke(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "x", products: { source: "collection", collection_id: "c-9" } } });
    expect(unknown.body).toEqual({ errors: ["products.collection_id must be a collection of this shop"] });
  });
});

