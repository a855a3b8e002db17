import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { seedSignups } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/**
 * One rule for date bounds in every area (src/core/period.ts): `from` inclusive, `to` exclusive,
 * a bare date as `to` covering that whole day (UTC).
 */
const env = useTestEnv({ shop: "Periods shop" });

/** Three records in each area: at the day's start, at noon sharp, and late in the day. */
const TIMES = ["2026-10-02T00:00:00.000Z", "2026-10-02T12:00:00.000Z", "2026-10-02T23:59:59.999Z"];

beforeAll(async () => {
  await seedSignups(
    env.pool,
    env.shopId,
    TIMES.map((createdAt, i) => ({ variant: 401, product: 40, contact: `p${String(i)}@example.com`, createdAt })),
  );
  for (const [i, at] of TIMES.entries()) {
    await env.pool.query(
      `insert into preorder_orders (shop_id, platform_order_id, name, currency, total_price, total_outstanding, platform_created_at, platform_updated_at)
       values ($1, $2, $3, 'USD', 10, 0, $4, $4)`,
      [env.shopId, `gid://shopify/Order/${String(900 + i)}`, `#${String(900 + i)}`, at],
    );
  }
});

/** How many records each area finds between the bounds: signups, then orders. */
async function counts(from: string, to: string): Promise<number[]> {
  const q = (name: string, value: string) => `${name}=${encodeURIComponent(value)}`;
  const signups = await invoke(env.app, "GET", `/back_in_stock/signups?${q("created_from", from)}&${q("created_to", to)}`, { key: env.key });
  const orders = await invoke(env.app, "GET", `/preorders/orders?${q("created_from", from)}&${q("created_to", to)}`, { key: env.key });
  expect([signups.status, orders.status]).toEqual([200, 200]);
  return [(signups.body as { signups: unknown[] }).signups.length, (orders.body as { orders: unknown[] }).orders.length];
}

describe("date bounds follow one rule in every area", () => {
  it("a timestamp `to` is exclusive: a record at exactly that instant is left out", async () => {
    expect(await counts("2026-10-02", "2026-10-02T12:00:00Z")).toEqual([1, 1]);
  });

  it("a bare date `to` covers its whole day, and `from` is inclusive", async () => {
    expect(await counts("2026-10-02", "2026-10-02")).toEqual([3, 3]);
    expect(await counts("2026-10-02T12:00:00Z", "2026-10-03")).toEqual([2, 2]);
  });

  it("both areas refuse a bad bound with the same message", async () => {
    const signups = await invoke(env.app, "GET", "/back_in_stock/signups?created_to=tomorrow", { key: env.key });
    const orders = await invoke(env.app, "GET", "/preorders/orders?created_to=tomorrow", { key: env.key });
    expect(signups.body).toEqual({ errors: ["created_to must be an ISO 8601 date or timestamp"] });
    expect(orders.body).toEqual(signups.body);
  });

  it("descriptions say it the same way", async () => {
    const help = await invoke(env.app, "GET", "/help", { key: env.key });
    const actions = (help.body as { actions: { name: string; description: string }[] }).actions;
    const rule = "from is inclusive, to exclusive, and a bare date as to covers that whole day";
    for (const name of ["back_in_stock.signups.list", "back_in_stock.notifications.list", "preorders.orders.list", "back_in_stock.reports.signups", "preorders.reports.by_offer.export"]) {
      expect(actions.find((a) => a.name === name)?.description, name).toContain(rule);
    }
  });
});
