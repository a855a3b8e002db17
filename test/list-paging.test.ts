import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { seedSignups, seedVariants } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { createOffer } from "./helpers/offers.ts";

/**
 * One paging behaviour for every list (src/core/paging.ts): per_page (1-250, default 50), page or
 * cursor, and the answer { <items>, page, per_page, total, next_cursor }.
 */
const env = useTestEnv({ shop: "Paging shop" });

const COUNT = 5;
let offerId: string;

beforeAll(async () => {
  await seedVariants(
    env.pool,
    env.shopId,
    Array.from({ length: COUNT }, (_, i) => ({ n: 601 + i, product: 60, price: "10.00", available: 0 })),
  );
  await seedSignups(
    env.pool,
    env.shopId,
    // two share a creation time: keyset paging must still give each exactly once
    Array.from({ length: COUNT }, (_, i) => ({ variant: 601 + i, product: 60, contact: `page${String(i)}@example.com`, createdAt: `2026-02-0${String(Math.min(i, 3) + 1)}T10:00:00Z` })),
  );
  for (let i = 0; i < COUNT; i++) {
    await env.pool.query(
      `insert into preorder_orders (shop_id, platform_order_id, currency, total_price, total_outstanding, platform_created_at, platform_updated_at)
       values ($1, $2, 'USD', 10, 0, $3, $3)`,
      [env.shopId, `gid://shopify/Order/${String(700 + i)}`, `2026-02-0${String(Math.min(i, 3) + 1)}T10:00:00Z`],
    );
  }
  await env.pool.query(
    `insert into bis_notification_entries (shop_id, variant_id, stage, channel, status, created_at)
     select $1, 'gid://shopify/ProductVariant/601', 'initial', 'email', 'sent', timestamptz '2026-02-01T10:00:00Z' + make_interval(mins => g)
     from generate_series(1, $2) g`,
    [env.shopId, COUNT],
  );
  for (let i = 0; i < COUNT - 1; i++) await createOffer(env.app, env.key, { name: `Offer ${String(i)}` });
  const offer = await createOffer(env.app, env.key, { name: "With variants", products: { variant_ids: Array.from({ length: COUNT }, (_, i) => 601 + i) } });
  offerId = offer.id;
});

/** Every list, by its path and the key of its items. */
const LISTS = (): [string, string][] => [
  ["/back_in_stock/signups", "signups"],
  ["/back_in_stock/notifications", "notifications"],
  ["/preorders/orders", "orders"],
  ["/preorders/offers?status=draft", "offers"],
  [`/preorders/offers/${offerId}/variants`, "variants"],
];

const join = (path: string, query: string) => `${path}${path.includes("?") ? "&" : "?"}${query}`;

describe("every list pages the same way", () => {
  it("answers { items, page, per_page, total, next_cursor, meta } with the same defaults", async () => {
    for (const [path, key] of LISTS()) {
      const answer = await invoke(env.app, "GET", path, { key: env.key });
      expect(answer.status, path).toBe(200);
      const body = answer.body as Record<string, unknown>;
      expect(Object.keys(body).sort(), path).toEqual([key, "meta", "next_cursor", "page", "per_page", "total"].sort());
      expect(body, path).toMatchObject({ page: 1, per_page: 50, total: COUNT, next_cursor: null });
      expect(body.meta, path).toEqual({ total_count: COUNT, page: 1, per_page: 50, total_pages: 1 });
      expect(body[key], path).toHaveLength(COUNT);
    }
  });

  it("answers meta { total_count, page, per_page, total_pages } as STOQ's lists do, by page and by cursor (issue 31: there was none)", async () => {
    for (const [path] of LISTS()) {
      const second = (await invoke(env.app, "GET", join(path, "per_page=2&page=2"), { key: env.key })).body as { meta: unknown; next_cursor: string };
      expect(second.meta, path).toEqual({ total_count: COUNT, page: 2, per_page: 2, total_pages: Math.ceil(COUNT / 2) });
      const byCursor = (await invoke(env.app, "GET", join(path, `per_page=2&cursor=${second.next_cursor}`), { key: env.key })).body as { meta: unknown };
      expect(byCursor.meta, path).toEqual({ total_count: COUNT, page: null, per_page: 2, total_pages: Math.ceil(COUNT / 2) });
    }
  });

  it("pages by page number and by cursor, each item exactly once, in the same order", async () => {
    for (const [path, key] of LISTS()) {
      const all = ((await invoke(env.app, "GET", path, { key: env.key })).body as Record<string, { id: unknown }[]>)[key]?.map((item) => item.id);
      const byPage: unknown[] = [];
      for (let page = 1; page <= 3; page++) {
        const body = (await invoke(env.app, "GET", join(path, `per_page=2&page=${String(page)}`), { key: env.key })).body as Record<string, unknown>;
        expect(body, path).toMatchObject({ page, per_page: 2, total: COUNT });
        byPage.push(...(body[key] as { id: unknown }[]).map((item) => item.id));
      }
      const byCursor: unknown[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `per_page=2${cursor ? `&cursor=${cursor}` : ""}`;
        const body = (await invoke(env.app, "GET", join(path, query), { key: env.key })).body as Record<string, unknown>;
        expect(body.total, path).toBe(COUNT);
        byCursor.push(...(body[key] as { id: unknown }[]).map((item) => item.id));
        cursor = body.next_cursor as string | null;
        pages++;
      } while (cursor && pages < 10);
      expect(pages, path).toBe(3);
      expect(byPage, path).toEqual(all);
      expect(byCursor, path).toEqual(all);
    }
  });

  it("refuses bad paging with the same messages everywhere", async () => {
    for (const [path] of LISTS()) {
      const cases: [string, string[]][] = [
        ["per_page=251", ["per_page must be at most 250"]],
        ["per_page=0", ["per_page must be at least 1"]],
        ["per_page=two", ["per_page must be an integer"]],
        ["page=0", ["page must be at least 1"]],
        ["cursor=nonsense", ["cursor must be the next_cursor of a previous page"]],
        ["page=2&cursor=nonsense", ["cursor must be the next_cursor of a previous page"]],
      ];
      for (const [query, errors] of cases) {
        expect((await invoke(env.app, "GET", join(path, query), { key: env.key })).body, `${path} ${query}`).toEqual({ errors });
      }
      const first = (await invoke(env.app, "GET", join(path, "per_page=1"), { key: env.key })).body as { next_cursor: string };
      const both = await invoke(env.app, "GET", join(path, `page=2&cursor=${first.next_cursor}`), { key: env.key });
      expect(both.body, path).toEqual({ errors: ["cursor is not allowed with page"] });
    }
  });
});
