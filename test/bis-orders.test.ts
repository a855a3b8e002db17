import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { seedOrder, seedSignups, seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { deliverWebhook, webhooksProcessed } from "./helpers/webhook-delivery.ts";

const env = useTestEnv({ shop: "Orders shop", worker: { pollInterval: 50 } });
let other: { shopId: string; apiKey: string };
let ids: string[];

interface Order {
  id: string;
  name: string | null;
  ordered_at: string;
  currency: string | null;
  cancelled: boolean;
  order_stored: boolean;
  revenue: number;
  variants: { variant_id: string; quantity: number; revenue: number }[];
  signups: { id: string; variant_id: string; channel: string; recipient: string; notified_at: string | null }[];
}
interface Page {
  orders: Order[];
  page: number | null;
  per_page: number;
  total: number;
  next_cursor: string | null;
}

const list = async (query = "", key = env.key) => invoke(env.app, "GET", `/back_in_stock/orders${query}`, { key });
const orderIds = (body: unknown) => (body as Page).orders.map((o) => o.id);
const gid = (n: number) => `gid://shopify/Order/${n}`;

/**
 * January 2026. Variants 501 (product 50, 20.00), 502 (product 50, 50.00), 503 (product 51).
 *   order 1001 (2 x 501 at 20.00, 1 x 502 at 50.00), placed 01-06: converted #1 (email) and #2 (sms), both on 501
 *   order 1002 (1 x 502 at 45.00), placed 01-10: converted #3 (502)
 *   order 1003 (cancelled since, 1 x 501), placed 01-07: converted #4 (501)
 *   order 1004 (not stored), placed 01-08: converted #5 (503)
 *   #6 waiting, #7 notified: no order.
 */
beforeAll(async () => {
  other = await createShopWithKey(env.app.pool, "Other orders shop");
  await seedVariants(env.app.pool, env.shopId, [
    { n: 501, product: 50, price: "20.00" },
    { n: 502, product: 50, price: "50.00" },
    { n: 503, product: 51, price: "10.00" },
  ]);
  const o1 = await seedOrder(env.app.pool, env.shopId, 1001, [
    { variant: 501, quantity: 2, price: "20.00" },
    { variant: 502, quantity: 1, price: "50.00" },
  ]);
  const o2 = await seedOrder(env.app.pool, env.shopId, 1002, [{ variant: 502, quantity: 1, price: "45.00" }]);
  const o3 = await seedOrder(env.app.pool, env.shopId, 1003, [{ variant: 501, quantity: 1, price: "20.00" }], { cancelled: true });
  const converted = (notifiedAt: string, convertedAt: string, orderId: string) =>
    ({ status: "converted", createdAt: "2026-01-01T10:00:00Z", notifiedAt, convertedAt, orderId }) as const;
  ids = await seedSignups(env.app.pool, env.shopId, [
    { variant: 501, product: 50, contact: "b@example.com", ...converted("2026-01-05T09:00:00Z", "2026-01-06T09:00:00Z", o1) },
    { variant: 501, product: 50, contact: "+15550000003", channel: "sms", ...converted("2026-01-05T09:30:00Z", "2026-01-06T09:00:00Z", o1) },
    { variant: 502, product: 50, contact: "e@example.com", ...converted("2026-01-09T09:00:00Z", "2026-01-10T09:00:00Z", o2) },
    { variant: 501, product: 50, contact: "h@example.com", ...converted("2026-01-05T09:00:00Z", "2026-01-07T09:00:00Z", o3) },
    { variant: 503, product: 51, contact: "i@example.com", ...converted("2026-01-07T09:00:00Z", "2026-01-08T09:00:00Z", gid(1004)) },
    { variant: 501, product: 50, contact: "a@example.com", createdAt: "2026-01-01T10:00:00Z" },
    { variant: 502, product: 50, contact: "d@example.com", status: "notified", createdAt: "2026-01-01T10:00:00Z", notifiedAt: "2026-01-05T09:00:00Z" },
  ]);
  // Another shop's order, converting one of its signups.
  await seedVariants(env.app.pool, other.shopId, [{ n: 501, product: 50 }]);
  const foreign = await seedOrder(env.app.pool, other.shopId, 5001, [{ variant: 501, quantity: 1, price: "20.00" }]);
  await seedSignups(env.app.pool, other.shopId, [{ variant: 501, product: 50, contact: "x@example.com", ...converted("2026-01-05T09:00:00Z", "2026-01-06T09:00:00Z", foreign) }]);
});

describe("GET /back_in_stock/orders", () => {
  it("lists the orders that converted signups, newest first, with their signups and the attributed variants' revenue", async () => {
    const answer = await list();
    expect(answer.status).toBe(200);
    const page = answer.body as Page;
    expect(page).toMatchObject({ page: 1, per_page: 50, total: 4, next_cursor: null });
    expect(page.orders.map((o) => o.id)).toEqual([gid(1002), gid(1004), gid(1003), gid(1001)]);
    const byId = new Map(page.orders.map((o) => [o.id, o]));
    expect(byId.get(gid(1001))).toEqual({
      id: gid(1001),
      name: null,
      ordered_at: "2026-01-06T09:00:00.000Z",
      currency: "USD",
      cancelled: false,
      order_stored: true,
      // Only the lines of the variant the signups waited for (501): 2 x 20.00; 502's line is not attributed.
      revenue: 40,
      variants: [{ variant_id: variantGid(501), quantity: 2, revenue: 40 }],
      signups: [
        { id: ids[0], variant_id: variantGid(501), channel: "email", recipient: "b@example.com", notified_at: "2026-01-05T09:00:00.000Z" },
        { id: ids[1], variant_id: variantGid(501), channel: "sms", recipient: "+15550000003", notified_at: "2026-01-05T09:30:00.000Z" },
      ],
    });
    expect(byId.get(gid(1002))).toMatchObject({ revenue: 45, cancelled: false, variants: [{ variant_id: variantGid(502), quantity: 1, revenue: 45 }] });
    expect(byId.get(gid(1003))).toMatchObject({ revenue: 0, cancelled: true, order_stored: true, variants: [{ variant_id: variantGid(501), quantity: 1, revenue: 0 }] });
    expect(byId.get(gid(1004))).toMatchObject({
      revenue: 0,
      cancelled: false,
      order_stored: false,
      currency: null,
      variants: [{ variant_id: variantGid(503), quantity: 0, revenue: 0 }],
      signups: [{ id: ids[4] }],
    });
    // The same revenue the reports count as recovered.
    const summary = await invoke(env.app, "GET", "/back_in_stock/reports/summary", { key: env.key });
    expect((summary.body as { recovered_revenue: number }).recovered_revenue).toBe(page.orders.reduce((sum, o) => sum + o.revenue, 0));
  });

  it("filters by period (on ordered_at), variant and product", async () => {
    expect(orderIds((await list("?from=2026-01-07&to=2026-01-07")).body)).toEqual([gid(1003)]);
    expect(orderIds((await list("?from=2026-01-07T00:00:00Z&to=2026-01-10T09:00:00Z")).body)).toEqual([gid(1004), gid(1003)]);
    expect(orderIds((await list("?variant_id=502")).body)).toEqual([gid(1002)]);
    expect(orderIds((await list(`?product_id=${encodeURIComponent("gid://shopify/Product/50")}`)).body)).toEqual([gid(1002), gid(1003), gid(1001)]);
    const none = await list("?variant_id=999");
    expect(none.body).toEqual({ orders: [], page: 1, per_page: 50, total: 0, next_cursor: null, meta: { total_count: 0, page: 1, per_page: 50, total_pages: 0 } });
  });

  it("pages by number and by cursor", async () => {
    const first = (await list("?per_page=3")).body as Page;
    expect(first.orders.map((o) => o.id)).toEqual([gid(1002), gid(1004), gid(1003)]);
    expect(first.next_cursor).not.toBeNull();
    const next = (await list(`?per_page=3&cursor=${first.next_cursor}`)).body as Page;
    expect(next).toMatchObject({ page: null, per_page: 3, total: 4, next_cursor: null });
    expect(next.orders.map((o) => o.id)).toEqual([gid(1001)]);
    expect(orderIds((await list("?per_page=3&page=2")).body)).toEqual([gid(1001)]);
  });

  it("refuses invalid parameters, one message each", async () => {
    const answer = await list("?from=yesterday&per_page=0&variant_id=abc&sort=revenue");
    expect(answer.status).toBe(422);
    expect((answer.body as { errors: string[] }).errors.sort()).toEqual(
      [
        "from must be an ISO 8601 date or timestamp",
        "per_page must be at least 1",
        "sort is not allowed",
        "variant_id must be a numeric id or a gid://shopify/ProductVariant/<id>",
      ].sort(),
    );
    expect((await list("?cursor=nope")).body).toEqual({ errors: ["cursor must be the next_cursor of a previous page"] });
    expect((await list("?from=2026-02-01&to=2026-01-01")).body).toEqual({ errors: ["to must be after from"] });
  });

  it("keeps shops apart", async () => {
    const theirs = await list("", other.apiKey);
    expect(orderIds(theirs.body)).toEqual([gid(5001)]);
  });
});

describe("GET /back_in_stock/orders/{id}", () => {
  it("answers one order by numeric id or gid, as the list shows it", async () => {
    const listed = ((await list()).body as Page).orders.find((o) => o.id === gid(1001));
    for (const id of ["1001", encodeURIComponent(gid(1001))]) {
      const answer = await invoke(env.app, "GET", `/back_in_stock/orders/${id}`, { key: env.key });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(listed);
    }
  });

  it("answers 404 for another shop's order, an order no alert led to, and a malformed id", async () => {
    for (const id of ["5001", "9999", "abc"]) {
      const answer = await invoke(env.app, "GET", `/back_in_stock/orders/${id}`, { key: env.key });
      expect(answer).toMatchObject({ status: 404, body: { errors: [`Back-in-stock order not found: ${id}`] } });
    }
    expect((await invoke(env.app, "GET", "/back_in_stock/orders/5001", { key: other.apiKey })).status).toBe(200);
  });

  it("shows an order as soon as its webhook converts an alerted signup", async () => {
    const domain = "orders-shop.platform.local";
    await env.app.pool.query("update shops set platform_domain = $2 where id = $1", [env.shopId, domain]);
    const [signup] = await seedSignups(env.app.pool, env.shopId, [
      { variant: 502, product: 50, contact: "live@example.com", status: "notified", createdAt: new Date(Date.now() - 86_400_000).toISOString(), notifiedAt: new Date(Date.now() - 3_600_000).toISOString() },
    ]);
    const placedAt = new Date(Date.now() - 60_000).toISOString();
    await deliverWebhook(env.app.origin, "orders/create", {
      id: 2001,
      admin_graphql_api_id: gid(2001),
      name: "#2001",
      email: "live@example.com",
      currency: "EUR",
      created_at: placedAt,
      updated_at: placedAt,
      cancelled_at: null,
      line_items: [{ id: 1, variant_id: 502, quantity: 3, price: "50.00" }],
    }, domain);
    await webhooksProcessed(env.app.pool, env.shopId);
    const answer = await invoke(env.app, "GET", "/back_in_stock/orders/2001", { key: env.key });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      id: gid(2001),
      name: "#2001",
      currency: "EUR",
      ordered_at: placedAt,
      revenue: 150,
      variants: [{ variant_id: variantGid(502), quantity: 3, revenue: 150 }],
      signups: [{ id: signup, recipient: "live@example.com" }],
    });
    expect(orderIds((await list()).body)[0]).toBe(gid(2001));
  });
});
