import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { insertOffer, orderPayload, placeOrder, useDomain, orderTopics } from "./helpers/preorder-shop.ts";

/**
 * An offer limited to markets takes no order from another market silently: the order's market is
 * resolved at ingest from the buyer's country through the shop's mirrored markets (the platform
 * assigns markets by country; the order payload names none), and an order from a market the offer
 * excludes is flagged like the other rule breaks: rule_breaks, the preorder-market-excluded tag,
 * the preorder_order.rules_broken event. Decision 0205.
 */
const env = useTestEnv({ shop: "Markets Shop", worker: true, config: { DEVELOPER_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
const DOMAIN = "markets-shop.platform.local";
const EU = "gid://shopify/Market/7001";
const US = "gid://shopify/Market/7002";

interface OrderBody {
  market_id: string | null;
  rule_breaks: { offer_id: string; rule: string }[];
  app_tags: string[];
}

beforeAll(async () => {
  await useDomain(env.app.pool, env.shopId, DOMAIN);
  // Events are recorded for a shop with a developer webhook (nothing listens: only the record is checked).
  const hook = await invoke(env.app, "PATCH", "/preorders/developer_settings", { key: env.key, body: { webhook: { url: "http://127.0.0.1:9/hooks", secret: "0123456789abcdef-markets" } } });
  expect(hook.status).toBe(202);
  await env.app.pool.query(
    `insert into markets (shop_id, id, name, active, is_primary, countries) values
       ($1, $2, 'Europe', true, false, '{FR,DE}'), ($1, $3, 'United States', true, true, '{US}')`,
    [env.shopId, EU, US],
  );
});

async function order(plan: number, address: { shipping?: string; billing?: string }): Promise<{ id: string; body: OrderBody }> {
  const payload: Record<string, unknown> & { id: number; admin_graphql_api_id: string } = orderPayload({ plan });
  if (address.shipping) payload.shipping_address = { country_code: address.shipping };
  if (address.billing) payload.billing_address = { country_code: address.billing };
  const id = await placeOrder(env, DOMAIN, "orders/create", payload);
  const got = await invoke(env.app, "GET", `/preorders/orders/${id}`, { key: env.key });
  expect(got.status).toBe(200);
  return { id, body: got.body as OrderBody };
}

const topics = (orderId: string) => orderTopics(env.app.pool, orderId);

describe("markets at order ingest", () => {
  it("an order shipped to a country of another market is flagged preorder-market-excluded, with the event; one of the offer's market is not", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId, { markets: { enabled: true, applies_to_all_markets: false, market_ids: [EU] } });
    const outside = await order(offer.plan, { shipping: "US" });
    expect(outside.body.market_id).toBe(US);
    expect(outside.body.rule_breaks).toEqual([{ offer_id: offer.id, rule: "markets", variant_id: null, limit: null, units: null }]);
    expect(outside.body.app_tags).toContain("preorder-market-excluded");
    expect(await topics(outside.id)).toEqual(["preorder_order.created", "preorder_order.rules_broken"]);

    const inside = await order(offer.plan, { shipping: "fr" });
    expect(inside.body.market_id).toBe(EU);
    expect(inside.body.rule_breaks).toEqual([]);
    expect(inside.body.app_tags).not.toContain("preorder-market-excluded");
  });

  it("the billing country stands in when there is no shipping address; an order with neither is not judged (no market to compare)", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId, { markets: { enabled: true, applies_to_all_markets: false, market_ids: [EU] } });
    const billed = await order(offer.plan, { billing: "US" });
    expect(billed.body.market_id).toBe(US);
    expect(billed.body.rule_breaks.map((b) => b.rule)).toEqual(["markets"]);
    const unknown = await order(offer.plan, {});
    expect(unknown.body.market_id).toBeNull();
    expect(unknown.body.rule_breaks).toEqual([]);
  });

  it("an offer in every market (or with markets off) takes orders from any market", async () => {
    const all = await insertOffer(env.app.pool, env.shopId, { markets: { enabled: true, applies_to_all_markets: true } });
    const off = await insertOffer(env.app.pool, env.shopId, { markets: { enabled: false, applies_to_all_markets: false, market_ids: [EU] } });
    expect((await order(all.plan, { shipping: "US" })).body.rule_breaks).toEqual([]);
    expect((await order(off.plan, { shipping: "US" })).body.rule_breaks).toEqual([]);
  });
});
