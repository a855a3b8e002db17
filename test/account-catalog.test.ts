import { describe, expect, it } from "vitest";
import { CATALOG_SYNC_IN_PROGRESS } from "../src/catalog/readiness.ts";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { productGid, seedVariants } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({
  connect: "synced",
  emulator: {
    seed: { products: 3, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1 },
    throttle: { maximumAvailable: 100_000, restoreRate: 100_000 },
  },
});

interface ProductAnswer {
  id: string;
  legacy_id: string | null;
  title: string;
  tags: string[];
  total_available: number | null;
  variants: { id: string; title: string; sku: string | null; available: number | null }[];
}
interface Page {
  products: ProductAnswer[];
  page: number | null;
  per_page: number;
  total: number;
  next_cursor: string | null;
}

/** A shop not connected to the platform, whose mirror the test writes. */
async function seededShop(name: string): Promise<{ shopId: string; key: string }> {
  const { shopId, apiKey } = await createShopWithKey(env.app.pool, name);
  await seedVariants(env.app.pool, shopId, [
    { n: 11, product: 1, productTitle: "Linen Shirt", title: "Blue / M", available: 4 },
    { n: 12, product: 1, productTitle: "Linen Shirt", title: "Red / L", available: 1 },
    { n: 21, product: 2, productTitle: "Wool Hat", title: "Grey" },
    { n: 31, product: 3, productTitle: "Canvas Bag", title: "Default Title", available: 0 },
  ]);
  await env.app.pool.query("update products set tags = '{summer,linen}' where shop_id = $1 and id = $2", [shopId, productGid(1)]);
  return { shopId, key: apiKey };
}

describe("GET /account/products", () => {
  it("lists the mirror by title with variants, inventory and tags; query matches title, variant title and SKU", async () => {
    const shop = await seededShop("Products Shop");
    const all = await invoke(env.app, "GET", "/account/products", { key: shop.key });
    expect(all.status).toBe(200);
    const page = all.body as Page;
    expect(page.products.map((p) => p.title)).toEqual(["Canvas Bag", "Linen Shirt", "Wool Hat"]);
    expect(page).toMatchObject({ page: 1, per_page: 50, total: 3, next_cursor: null });
    const shirt = page.products[1];
    expect(shirt).toMatchObject({ id: productGid(1), legacy_id: "1", tags: ["summer", "linen"], total_available: 5 });
    expect(shirt?.variants.map((v) => [v.title, v.sku, v.available])).toEqual([
      ["Blue / M", "SKU-11", 4],
      ["Red / L", "SKU-12", 1],
    ]);
    expect(page.products[2]).toMatchObject({ title: "Wool Hat", total_available: null });

    const byTitle = await invoke(env.app, "GET", "/account/products?query=shirt", { key: shop.key });
    expect((byTitle.body as Page).products.map((p) => p.title)).toEqual(["Linen Shirt"]);
    const byVariant = await invoke(env.app, "GET", "/account/products?query=grey", { key: shop.key });
    expect((byVariant.body as Page).products.map((p) => p.title)).toEqual(["Wool Hat"]);
    const bySku = await invoke(env.app, "GET", "/account/products?query=sku-31", { key: shop.key });
    expect((bySku.body as Page)).toMatchObject({ total: 1, products: [{ title: "Canvas Bag" }] });
    const wildcard = await invoke(env.app, "GET", "/account/products?query=%25", { key: shop.key });
    expect(wildcard.body).toMatchObject({ total: 0, products: [] });
  });

  it("pages by page number and by cursor", async () => {
    const shop = await seededShop("Paging Shop");
    const first = await invoke(env.app, "GET", "/account/products?per_page=2", { key: shop.key });
    const one = first.body as Page;
    expect(one.products.map((p) => p.title)).toEqual(["Canvas Bag", "Linen Shirt"]);
    expect(one.next_cursor).not.toBeNull();
    const next = await invoke(env.app, "GET", `/account/products?per_page=2&cursor=${one.next_cursor ?? ""}`, { key: shop.key });
    expect(next.body).toMatchObject({ page: null, total: 3, next_cursor: null, products: [{ title: "Wool Hat" }] });
    const second = await invoke(env.app, "GET", "/account/products?per_page=2&page=2", { key: shop.key });
    expect(second.body).toMatchObject({ page: 2, products: [{ title: "Wool Hat" }] });
  });

  it("refuses bad paging and unknown parameters with one message per field", async () => {
    const shop = await seededShop("Invalid Shop");
    const answer = await invoke(env.app, "GET", "/account/products?per_page=0&page=x&sort=title", { key: shop.key });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: ["page must be an integer", "per_page must be at least 1", "sort is not allowed"] });
    const both = await invoke(env.app, "GET", "/account/products?page=1&cursor=WyJhIiwiYiJd", { key: shop.key });
    expect(both.body).toEqual({ errors: ["cursor is not allowed with page"] });
    const badCursor = await invoke(env.app, "GET", "/account/products?cursor=nope", { key: shop.key });
    expect(badCursor.body).toEqual({ errors: ["cursor must be the next_cursor of a previous page"] });
  });

  it("GET /account/products/{id} takes the numeric id or the gid; another shop's or an unknown id is 404", async () => {
    const shop = await seededShop("Product Get Shop");
    const other = await seededShop("Other Product Shop");
    const byNumber = await invoke(env.app, "GET", "/account/products/2", { key: shop.key });
    expect(byNumber.status).toBe(200);
    expect(byNumber.body).toMatchObject({ id: productGid(2), title: "Wool Hat", variants: [{ title: "Grey", available: null }] });
    const byGid = await invoke(env.app, "GET", `/account/products/${encodeURIComponent(productGid(2))}`, { key: shop.key });
    expect(byGid.body).toEqual(byNumber.body);
    // Same ids in the other shop's mirror: each shop reads its own only.
    await env.app.pool.query("delete from products where shop_id = $1 and id = $2", [other.shopId, productGid(3)]);
    const gone = await invoke(env.app, "GET", "/account/products/3", { key: other.key });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ errors: ["Product not found: 3"] });
    const unknown = await invoke(env.app, "GET", "/account/products/999", { key: shop.key });
    expect(unknown.body).toEqual({ errors: ["Product not found: 999"] });
  });

  it("a connected shop whose first full sync has not completed is refused with 409 (an unmirrored id is not unknown yet)", async () => {
    const { shopId, apiKey } = await createShopWithKey(env.app.pool, "Syncing Shop");
    await env.platform.connect(env.app.pool, shopId, { domain: "syncing-shop.platform.local", graphqlUrl: env.emulator.graphqlUrl, accessToken: env.emulator.accessToken });
    const list = await invoke(env.app, "GET", "/account/products", { key: apiKey });
    expect(list.status).toBe(409);
    expect(list.body).toEqual({ errors: [CATALOG_SYNC_IN_PROGRESS] });
    const one = await invoke(env.app, "GET", "/account/products/1", { key: apiKey });
    expect(one.status).toBe(409);
  });

  it("the env's synced shop lists the emulator's mirrored catalog", async () => {
    const answer = await invoke(env.app, "GET", "/account/products", { key: env.key });
    expect(answer.status).toBe(200);
    const page = answer.body as Page;
    expect(page.total).toBe(3);
    expect(page.products.every((p) => p.variants.length === 2)).toBe(true);
  });
});

interface SetupAnswer {
  platform: { connected: boolean };
  catalog: { status: string; variants_mirrored: number };
  steps: { key: string; title: string; done: boolean; detail: string }[];
  completed: number;
  total: number;
}

async function setup(key: string): Promise<SetupAnswer> {
  const answer = await invoke(env.app, "GET", "/account/setup", { key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as SetupAnswer;
}

const done = (s: SetupAnswer) => Object.fromEntries(s.steps.map((step) => [step.key, step.done]));

describe("GET /account/setup", () => {
  it("a new unconnected shop: only the back-in-stock alerts step is done (the shipped defaults)", async () => {
    const { apiKey } = await createShopWithKey(env.app.pool, "Setup New");
    const s = await setup(apiKey);
    expect(done(s)).toEqual({
      platform_connected: false,
      catalog_mirrored: false,
      offer_created: false,
      offer_live: false,
      back_in_stock_channels: true,
      template_customized: false,
      sending_configured: false,
      integrations_connected: false,
    });
    expect(s).toMatchObject({ completed: 1, total: 8, catalog: { status: "not_started" } });
    expect(s.steps.find((step) => step.key === "catalog_mirrored")?.detail).toBe("no catalog sync has run yet");
  });

  it("the steps follow the facts: connection and mirror, an offer, a template, the sender, the channels switched off", async () => {
    const before = await setup(env.key);
    expect(done(before)).toMatchObject({ platform_connected: true, catalog_mirrored: true, offer_created: false });
    expect(before.steps.find((s) => s.key === "catalog_mirrored")?.detail).toBe(`${before.catalog.variants_mirrored} variants of 3 products mirrored`);

    const offer = await invoke(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "Setup Offer" } });
    // A provider connection as PATCH /account/integrations leaves it (its credential sealed).
    await env.app.pool.query(
      "insert into integration_connections (shop_id, provider, credential, connected_at) values ($1, 'email_provider_2', '\\x00'::bytea, now())",
      [env.shopId],
    );
    expect(offer.status).toBe(202);
    expect(await invoke(env.app, "PATCH", "/account/templates/email_layout", { key: env.key, body: { footer_text: "Our shop" } })).toMatchObject({ status: 202 });
    expect(await invoke(env.app, "PATCH", "/account/sending", { key: env.key, body: { reply_to: "care@setup.example" } })).toMatchObject({ status: 202 });
    expect(await invoke(env.app, "PATCH", "/back_in_stock/settings", { key: env.key, body: { channels: { email: { enabled: false }, sms: { enabled: false } } } })).toMatchObject({
      status: 202,
    });

    const after = await setup(env.key);
    expect(done(after)).toEqual({
      platform_connected: true,
      catalog_mirrored: true,
      offer_created: true,
      offer_live: false,
      back_in_stock_channels: false,
      template_customized: true,
      sending_configured: true,
      integrations_connected: true,
    });
    expect(after.completed).toBe(6);
    expect(after.steps.find((s) => s.key === "integrations_connected")?.detail).toBe("connected: email_provider_2");
    expect(after.steps.find((s) => s.key === "offer_live")?.detail).toBe("no offer is enabled (POST /preorders/offers/{id}/enable)");
    expect(after.steps.find((s) => s.key === "back_in_stock_channels")?.detail).toBe("both channels are switched off in the back-in-stock settings");
  });

  it("refuses an unknown query parameter", async () => {
    const answer = await invoke(env.app, "GET", "/account/setup?verbose=true", { key: env.key });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: ["verbose is not allowed"] });
  });
});
