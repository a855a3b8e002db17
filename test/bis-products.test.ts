import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { productGid, seedSignups, seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ shop: "Products shop" });
let other: { shopId: string; apiKey: string };

interface Product {
  id: string;
  title: string | null;
  waiting: number;
  variants: { id: string }[];
}
interface Page {
  products: Product[];
  page: number | null;
  per_page: number;
  total: number;
  next_cursor: string | null;
}

const list = async (query = "", key = env.key) => invoke(env.app, "GET", `/back_in_stock/products${query}`, { key });
const productIds = (body: unknown) => (body as Page).products.map((p) => p.id);
const at = "2026-01-01T10:00:00Z";

/**
 * Product 50 "Linen Shirt": 501 (M, 20.00, 0 in stock; 2 waiting, 1 notified, 1 converted), 502 (L, 50.00, 3 in stock;
 * 1 waiting), 504 (XL, 7 in stock; no signup). Product 51 "Wool Socks": 503 (no inventory level; 4 waiting).
 * Product 52: not in the mirror; its variant 599 has 1 waiting and 1 unsubscribed signup. Product 53: in the mirror, no signup.
 */
beforeAll(async () => {
  other = await createShopWithKey(env.app.pool, "Other products shop");
  await seedVariants(env.app.pool, env.shopId, [
    { n: 501, product: 50, price: "20.00", available: 0, productTitle: "Linen Shirt", title: "M" },
    { n: 502, product: 50, price: "50.00", available: 3, productTitle: "Linen Shirt", title: "L" },
    { n: 504, product: 50, price: "55.00", available: 7, productTitle: "Linen Shirt", title: "XL" },
    { n: 503, product: 51, price: "10.00", productTitle: "Wool Socks", title: "Default Title" },
    { n: 531, product: 53, price: "5.00", available: 1, productTitle: "Quiet Hat", title: "One size" },
  ]);
  const waiting = (variant: number, product: number, contact: string) => ({ variant, product, contact, createdAt: at });
  await seedSignups(env.app.pool, env.shopId, [
    waiting(501, 50, "a@example.com"),
    waiting(501, 50, "b@example.com"),
    { variant: 501, product: 50, contact: "c@example.com", status: "notified", createdAt: at, notifiedAt: "2026-01-02T10:00:00Z" },
    { variant: 501, product: 50, contact: "d@example.com", status: "converted", createdAt: at, notifiedAt: "2026-01-02T10:00:00Z", convertedAt: "2026-01-03T10:00:00Z", orderId: "gid://shopify/Order/1" },
    waiting(502, 50, "e@example.com"),
    ...["f", "g", "h", "i"].map((c) => waiting(503, 51, `${c}@example.com`)),
    waiting(599, 52, "j@example.com"),
    { variant: 599, product: 52, contact: "k@example.com", status: "unsubscribed", createdAt: at },
  ]);
  await seedVariants(env.app.pool, other.shopId, [{ n: 601, product: 60, available: 1 }]);
  await seedSignups(env.app.pool, other.shopId, [waiting(601, 60, "x@example.com")]);
});

describe("GET /back_in_stock/products", () => {
  it("lists products with signups, most waiting first, with their variants, counts and stock from the mirror", async () => {
    const answer = await list();
    expect(answer.status).toBe(200);
    const page = answer.body as Page;
    expect(page).toMatchObject({ page: 1, per_page: 50, total: 3, next_cursor: null });
    expect(productIds(page)).toEqual([productGid(51), productGid(50), productGid(52)]);
    const zero = { signups: 0, waiting: 0, units_wanted: 0, notified: 0, conversions: 0, conversion_rate: 0 };
    expect(page.products[1]).toEqual({
      id: productGid(50),
      title: "Linen Shirt",
      handle: "product-50",
      status: "ACTIVE",
      signups: 5,
      waiting: 3,
      units_wanted: 3,
      notified: 2,
      conversions: 1,
      conversion_rate: 0.5,
      available: 10,
      variants: [
        { id: variantGid(501), title: "M", sku: "SKU-501", price: 20, available: 0, signups: 4, waiting: 2, units_wanted: 2, notified: 2, conversions: 1, conversion_rate: 0.5 },
        { id: variantGid(502), title: "L", sku: "SKU-502", price: 50, available: 3, signups: 1, waiting: 1, units_wanted: 1, notified: 0, conversions: 0, conversion_rate: 0 },
        { id: variantGid(504), title: "XL", sku: "SKU-504", price: 55, available: 7, ...zero },
      ],
    });
    expect(page.products[0]).toMatchObject({ id: productGid(51), title: "Wool Socks", waiting: 4, available: null, variants: [{ id: variantGid(503), available: null, waiting: 4 }] });
    expect(page.products[2]).toEqual({
      id: productGid(52),
      title: null,
      handle: null,
      status: null,
      signups: 2,
      waiting: 1,
      units_wanted: 1,
      notified: 0,
      conversions: 0,
      conversion_rate: 0,
      available: null,
      variants: [{ id: variantGid(599), title: null, sku: null, price: null, available: null, signups: 2, waiting: 1, units_wanted: 1, notified: 0, conversions: 0, conversion_rate: 0 }],
    });
  });

  it("follows the signups: a new waiting signup moves its product up", async () => {
    await seedSignups(env.app.pool, env.shopId, [
      { variant: 599, product: 52, contact: "l@example.com", createdAt: at },
      { variant: 599, product: 52, contact: "m@example.com", createdAt: at },
    ]);
    expect(productIds((await list()).body)).toEqual([productGid(51), productGid(50), productGid(52)]);
    await seedSignups(env.app.pool, env.shopId, [{ variant: 599, product: 52, contact: "n@example.com", createdAt: at }]);
    // 52 now has 4 waiting, like 51: the tie goes by product id.
    expect(productIds((await list()).body)).toEqual([productGid(51), productGid(52), productGid(50)]);
    await env.app.pool.query("delete from bis_signups where shop_id = $1 and contact = any($2::text[])", [env.shopId, ["l@example.com", "m@example.com", "n@example.com"]]);
  });

  it("pages by number and by cursor", async () => {
    const first = (await list("?per_page=2")).body as Page;
    expect(productIds(first)).toEqual([productGid(51), productGid(50)]);
    const next = (await list(`?per_page=2&cursor=${first.next_cursor}`)).body as Page;
    expect(next).toMatchObject({ page: null, per_page: 2, total: 3, next_cursor: null });
    expect(productIds(next)).toEqual([productGid(52)]);
    expect(productIds((await list("?per_page=2&page=2")).body)).toEqual([productGid(52)]);
  });

  it("refuses invalid parameters, one message each", async () => {
    const answer = await list("?per_page=300&page=0&title=shirt");
    expect(answer.status).toBe(422);
    expect((answer.body as { errors: string[] }).errors.sort()).toEqual(["page must be at least 1", "per_page must be at most 250", "title is not allowed"]);
    expect((await list("?cursor=nope")).body).toEqual({ errors: ["cursor must be the next_cursor of a previous page"] });
  });

  it("keeps shops apart", async () => {
    expect(productIds((await list("", other.apiKey)).body)).toEqual([productGid(60)]);
  });
});

describe("GET /back_in_stock/products/{id}", () => {
  it("answers one product by numeric id or gid, as the list shows it", async () => {
    const listed = ((await list()).body as Page).products.find((p) => p.id === productGid(50));
    for (const id of ["50", encodeURIComponent(productGid(50))]) {
      const answer = await invoke(env.app, "GET", `/back_in_stock/products/${id}`, { key: env.key });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(listed);
    }
    expect((await invoke(env.app, "GET", "/back_in_stock/products/52", { key: env.key })).body).toMatchObject({ id: productGid(52), waiting: 1 });
  });

  it("answers zeros for a mirrored product without signups", async () => {
    const answer = await invoke(env.app, "GET", "/back_in_stock/products/53", { key: env.key });
    expect(answer).toMatchObject({
      status: 200,
      body: { id: productGid(53), title: "Quiet Hat", signups: 0, waiting: 0, available: 1, variants: [{ id: variantGid(531), signups: 0, waiting: 0, available: 1 }] },
    });
  });

  it("answers 404 for another shop's product, an unknown one and a malformed id", async () => {
    for (const id of ["60", "9999", "abc"]) {
      const answer = await invoke(env.app, "GET", `/back_in_stock/products/${id}`, { key: env.key });
      expect(answer).toMatchObject({ status: 404, body: { errors: [`Back-in-stock product not found: ${id}`] } });
    }
    expect((await invoke(env.app, "GET", "/back_in_stock/products/60", { key: other.apiKey })).status).toBe(200);
  });
});
