import { beforeAll, describe, expect, it } from "vitest";
import { reportBody, reportQuery } from "../src/preorders/reports/query.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { seedPreorderOrder } from "./helpers/preorders.ts";

const env = useTestEnv({ shop: "Report Count Shop" });
let offerA: string;
let offerB: string;

async function newOffer(shopId: string, name: string): Promise<string> {
  const { rows } = await env.app.pool.query<{ id: string }>("insert into preorder_offers (shop_id, name, internal_name) values ($1, $2, $2) returning id", [shopId, name]);
  return rows[0]?.id ?? "";
}

beforeAll(async () => {
  offerA = await newOffer(env.shopId, "A");
  offerB = await newOffer(env.shopId, "B");
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-09-02T10:00:00Z", currency: "EUR", lines: [{ product: 1, variant: 11, offerId: offerA }, { product: 2, variant: 21, offerId: offerB }] });
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-09-03T10:00:00Z", lines: [{ product: 1, variant: 12, offerId: offerA }] });
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-10-01T10:00:00Z", marketId: "gid://shopify/Market/5", lines: [{ product: 2, variant: 21, offerId: offerB }, { product: 1, variant: 11 }] });
  // A line that is not on a selling plan is no preorder line.
  await env.app.pool.query("update preorder_order_lines set selling_plan_id = null where shop_id = $1 and variant_id = 'gid://shopify/ProductVariant/11' and offer_id is null", [env.shopId]);
  // Another shop's lines are never counted.
  const other = await createShopWithKey(env.app.pool, "Report Count Other Shop");
  await seedPreorderOrder(env.app.pool, other.shopId, { lines: [{ product: 1, variant: 11, offerId: await newOffer(other.shopId, "C") }, { product: 1 }] });
});

describe("the by-offer export's count for progress", () => {
  const bodies = () => [
    {},
    { offer_id: offerA },
    { offer_ids: [offerA, offerB] },
    { product_id: "2" },
    { variant_id: "11", offer_id: offerA },
    { from: "2026-09-03" },
    { to: "2026-09-30" },
    { currency: "EUR" },
    { market_id: "gid://shopify/Market/5" },
    { offer_id: offerB, from: "2026-09-01", to: "2026-12-31" },
    { per_page: 2 },
    { page: 2, per_page: 2 },
    { page: 9, per_page: 2 },
    { granularity: "month" },
    { granularity: "day", offer_id: offerA },
  ];

  it("is the number of rows the report gives, with and without filters on the order", async () => {
    for (const body of bodies()) {
      const query = reportQuery("by_offer", reportBody.parse(body), env.shopId);
      const { rows } = await env.app.pool.query(query.sql, query.values);
      const { rows: counted } = await env.app.pool.query<{ n: number }>(query.count.sql, query.count.values);
      expect(counted[0]?.n, JSON.stringify(body)).toBe(rows.length);
    }
  });

  it("reads the lines alone when nothing filters on the order, and joins the orders when something does", () => {
    const count = (body: object) => reportQuery("by_offer", reportBody.parse(body), env.shopId).count.sql;
    for (const body of [{}, { offer_id: offerA }, { product_id: "2", variant_id: "21" }, { page: 2, per_page: 2 }]) expect(count(body), JSON.stringify(body)).not.toContain("preorder_orders");
    for (const body of [{ from: "2026-09-03" }, { to: "2026-09-30" }, { currency: "EUR" }, { market_id: "5" }, { granularity: "week" }]) expect(count(body), JSON.stringify(body)).toContain("preorder_orders");
  });

  it("can rely on a line's shop being its order's: the database refuses a line of another shop", async () => {
    const other = await createShopWithKey(env.app.pool, "Report Count Third Shop");
    const orderId = await seedPreorderOrder(env.app.pool, env.shopId, { lines: [] });
    await expect(
      env.app.pool.query(
        "insert into preorder_order_lines (order_id, shop_id, platform_line_id, quantity, price, selling_plan_id) values ($1, $2, 'x', 1, 1, 'gid://shopify/SellingPlan/1')",
        [orderId, other.shopId],
      ),
    ).rejects.toThrow(/preorder_order_lines_order_shop_fk/);
    await expect(env.app.pool.query("update preorder_order_lines set shop_id = $2 where shop_id = $1", [env.shopId, other.shopId])).rejects.toThrow(/preorder_order_lines_order_shop_fk/);
  });
});
