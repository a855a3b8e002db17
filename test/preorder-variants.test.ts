import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { createOffer, seedCatalog } from "./helpers/offers.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { seedPreorderOrder } from "./helpers/preorders.ts";

const env = useTestEnv({ shop: "Variants Shop" });
let otherKey: string;
let offerId: string;

/** A paid (or cancelled) preorder order of `quantity` units of a variant, written straight into the order tables. */
beforeAll(async () => {
  ({ apiKey: otherKey } = await createShopWithKey(env.app.pool, "Other Shop"));
  await seedCatalog(env.app.pool, env.shopId);
  await env.app.pool.query(
    `insert into locations (shop_id, id, name, active) values ($1, 'gid://shopify/Location/1', 'Warehouse', true), ($1, 'gid://shopify/Location/2', 'Closed shop', false)`,
    [env.shopId],
  );
  await env.app.pool.query(
    `insert into inventory_levels (shop_id, inventory_item_id, location_id, available, platform_updated_at) values
       ($1, 'gid://shopify/InventoryItem/101', 'gid://shopify/Location/1', 3, now()),
       ($1, 'gid://shopify/InventoryItem/101', 'gid://shopify/Location/2', 5, now())`,
    [env.shopId],
  );
  offerId = (await createOffer(env.app, env.key, { name: "Jacket drop", products: { variant_ids: [101, 201] } })).id;
  // Counted as order ingestion would: 101 has 4 live units (a cancelled order's 7 do not count).
  await seedPreorderOrder(env.app.pool, env.shopId, { lines: [{ variant: 101, quantity: 4, offerId }] });
  await seedPreorderOrder(env.app.pool, env.shopId, { cancelledAt: new Date(), lines: [{ variant: 101, quantity: 7, offerId }] });
  await env.app.pool.query("insert into preorder_variant_counts (shop_id, variant_id, preorder_count) values ($1, 'gid://shopify/ProductVariant/101', 4)", [env.shopId]);
});

interface Variant {
  id: number;
  gid: string;
  preorder_count: number;
  offer_count: number;
  inventory_available: number;
  product_title: string;
}
interface Page {
  variants: Variant[];
  page: number | null;
  per_page: number;
  total: number;
  next_cursor: string | null;
}

const get = (path: string, key = env.key) => invoke(env.app, "GET", path, { key });

describe("GET /preorders/product_variants", () => {
  it("lists the mirror's variants with preorder_count, inventory over active locations and offer count", async () => {
    const answer = await get("/preorders/product_variants");
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const body = answer.body as Page;
    expect(body.total).toBe(3);
    expect(body.variants.map((v) => v.id)).toEqual([101, 102, 201]);
    expect(body.variants[0]).toMatchObject({ id: 101, gid: "gid://shopify/ProductVariant/101", product_title: "Jacket", preorder_count: 4, offer_count: 1, inventory_available: 3 });
    expect(body.variants[1]).toMatchObject({ id: 102, preorder_count: 0, offer_count: 0, inventory_available: 0 });
  });

  it("filters by offer, product and has_preorders, and pages by cursor", async () => {
    const ids = async (query: string) => ((await get(`/preorders/product_variants?${query}`)).body as Page).variants.map((v) => v.id);
    expect(await ids(`offer_id=${offerId}`)).toEqual([101, 201]);
    expect(await ids("product_id=1")).toEqual([101, 102]);
    expect(await ids("product_id=gid://shopify/Product/2")).toEqual([201]);
    expect(await ids("has_preorders=true")).toEqual([101]);
    expect(await ids("has_preorders=false")).toEqual([102, 201]);
    expect(await ids(`offer_id=${randomUUID()}`)).toEqual([]);
    const first = (await get("/preorders/product_variants?per_page=2")).body as Page;
    expect(first.variants.map((v) => v.id)).toEqual([101, 102]);
    const second = (await get(`/preorders/product_variants?per_page=2&cursor=${first.next_cursor ?? ""}`)).body as Page;
    expect(second).toMatchObject({ page: null, total: 3, next_cursor: null });
    expect(second.variants.map((v) => v.id)).toEqual([201]);
  });

  it("refuses malformed filters (422) and shows another shop nothing", async () => {
    const answer = await get("/preorders/product_variants?has_preorders=yes&offer_id=x&per_page=0");
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({
      errors: ["per_page must be at least 1", "offer_id must be an offer id (a UUID)", "has_preorders must be one of: true, false"],
    });
    expect(((await get("/preorders/product_variants", otherKey)).body as Page).total).toBe(0);
  });
});

describe("GET /preorders/product_variants/{id}", () => {
  it("answers the variant with both counts and its inventory per location", async () => {
    const answer = await get("/preorders/product_variants/101");
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({
      id: 101,
      sku: null,
      price: "10.00",
      inventory_policy: "DENY",
      preorder_count: 4,
      preorder_count_live: 4,
      offer_count: 1,
      inventory: {
        available: 3,
        locations: [
          { location_id: "gid://shopify/Location/1", name: "Warehouse", active: true, available: 3 },
          { location_id: "gid://shopify/Location/2", name: "Closed shop", active: false, available: 5 },
        ],
      },
      offers_url: "/api/v2/external/preorders/product_variants/101/offers",
    });
  });

  it("answers 404 for an unknown variant, a malformed id and another shop's", async () => {
    expect((await get("/preorders/product_variants/999")).body).toEqual({ errors: ["Product variant not found: 999"] });
    expect((await get("/preorders/product_variants/abc")).status).toBe(404);
    expect((await get("/preorders/product_variants/101", otherKey)).body).toEqual({ errors: ["Product variant not found: 101"] });
  });
});

describe("GET /preorders/product_variants/{id}/offers", () => {
  it("lists the live offers whose variant list has the variant", async () => {
    const gone = (await createOffer(env.app, env.key, { name: "Gone", products: { variant_ids: [201] } })).id;
    expect((await invoke(env.app, "DELETE", `/preorders/offers/${gone}`, { key: env.key })).status).toBe(202);
    const answer = await get("/preorders/product_variants/201/offers");
    expect(answer.status).toBe(200);
    const body = answer.body as { variant_id: number; offers: { id: string; name: string; status: string; source: string }[] };
    expect(body.variant_id).toBe(201);
    expect(body.offers).toHaveLength(1);
    expect(body.offers[0]).toMatchObject({ id: offerId, name: "Jacket drop", status: "draft", source: "custom" });
    expect(((await get("/preorders/product_variants/102/offers")).body as { offers: unknown[] }).offers).toEqual([]);
    expect((await get("/preorders/product_variants/201/offers", otherKey)).status).toBe(404);
  });
});

describe("POST /preorders/product_variants/{id}/recalculate_preorder_count", () => {
  it("recounts the variant now and answers it with the new count", async () => {
    await seedPreorderOrder(env.app.pool, env.shopId, { lines: [{ variant: 101, quantity: 2, offerId }] });
    expect(((await get("/preorders/product_variants/101")).body as { preorder_count: number; preorder_count_live: number })).toMatchObject({
      preorder_count: 4,
      preorder_count_live: 6,
    });
    const answer = await invoke(env.app, "POST", "/preorders/product_variants/101/recalculate_preorder_count", { key: env.key, body: {} });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    expect(answer.body).toMatchObject({ id: 101, preorder_count: 6, preorder_count_live: 6 });
    const { rows } = await env.app.pool.query("select preorder_count from preorder_variant_counts where shop_id = $1 and variant_id = $2", [env.shopId, "gid://shopify/ProductVariant/101"]);
    expect(rows[0]).toEqual({ preorder_count: 6 });
    // A variant never counted gets its row (0).
    expect((await invoke(env.app, "POST", "/preorders/product_variants/102/recalculate_preorder_count", { key: env.key, body: {} })).body).toMatchObject({ preorder_count: 0 });
  });

  it("refuses unknown fields (422) and answers 404 for another shop's variant", async () => {
    expect((await invoke(env.app, "POST", "/preorders/product_variants/101/recalculate_preorder_count", { key: env.key, body: { all: true } })).body).toEqual({ errors: ["all is not allowed"] });
    expect((await invoke(env.app, "POST", "/preorders/product_variants/101/recalculate_preorder_count", { key: otherKey, body: {} })).status).toBe(404);
  });
});
