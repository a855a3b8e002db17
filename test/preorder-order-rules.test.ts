import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { findRuleBreaks } from "../src/preorders/orders/rule-breaks.ts";
import { invoke } from "./helpers/app.ts";
import { variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { insertOffer, orderPayload, placeOrder, useDomain } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * An order that breaks its offer's limits or mixed-cart rule is never counted silently: it shows
 * the broken rules, carries the rule's tags (pushed to the platform order) and the shop's
 * developer webhook is sent preorder_order.rules_broken.
 */
const env = useTestEnv({ shop: "Order Rules Shop", worker: true, config: { DEVELOPER_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
const DOMAIN = "order-rules-shop.platform.local";
const topics: string[] = [];
let server: Server;

interface RuleBreakBody {
  offer_id: string;
  rule: string;
  variant_id: string | null;
  limit: number | null;
  units: number | null;
}
interface OrderBody {
  rule_breaks: RuleBreakBody[];
  app_tags: string[];
  tags: string[];
}

beforeAll(async () => {
  await useDomain(env.app.pool, env.shopId, DOMAIN);
  server = createServer((req, res) => {
    topics.push(String(req.headers["x-preorder-topic"]));
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const patched = await invoke(env.app, "PATCH", "/preorders/developer_settings", { key: env.key, body: { webhook: { url: endpoint, secret: "0123456789abcdef-rules" } } });
  expect(patched.status).toBe(202);
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** An order of `lines` (variant id, quantity; a null plan is a regular line) placed by webhook. */
async function order(plan: number, lines: { variant: number; quantity: number; preorder?: boolean }[], email = "buyer@example.com"): Promise<{ id: string; body: OrderBody }> {
  const payload = orderPayload({ plan, email });
  payload.line_items = lines.map((line, n) => ({
    id: payload.id * 10 + n,
    variant_id: line.variant,
    product_id: 900,
    quantity: line.quantity,
    price: "10.00",
    selling_plan_allocation: line.preorder === false ? null : { selling_plan_id: plan },
  }));
  const id = await placeOrder(env, DOMAIN, "orders/create", payload);
  const got = await invoke(env.app, "GET", `/preorders/orders/${id}`, { key: env.key });
  expect(got.status).toBe(200);
  return { id, body: got.body as OrderBody };
}

async function eventTopics(orderId: string): Promise<string[]> {
  const { rows } = await env.app.pool.query<{ topic: string; payload: { rule_breaks?: RuleBreakBody[] } }>(
    "select topic, payload from preorder_webhook_events where order_id = $1 order by created_at, topic",
    [orderId],
  );
  return rows.map((r) => r.topic);
}


describe("an order breaking its offer's rules is tagged and reported, never counted silently", () => {
  it("per_order.max 1 and total.max 1, an order of 3: both limits named, tagged, the event sent; the count shows the 3 units", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId, { limits: { per_order: { max: 1 }, total: { max: 1 } } });
    const { id, body } = await order(offer.plan, [{ variant: 101, quantity: 3 }]);
    expect(body.rule_breaks).toEqual([
      { offer_id: offer.id, rule: "per_order.max", variant_id: variantGid(101), limit: 1, units: 3 },
      { offer_id: offer.id, rule: "total.max", variant_id: null, limit: 1, units: 3 },
    ]);
    expect(body.app_tags).toEqual(expect.arrayContaining(["preorder-limit-exceeded", "preorder-limit-per-order", "preorder-limit-total"]));
    expect(body.tags).toEqual(expect.arrayContaining(["preorder-limit-exceeded", "preorder-limit-per-order", "preorder-limit-total"]));
    expect(await eventTopics(id)).toEqual(["preorder_order.created", "preorder_order.rules_broken"]);
    const { rows } = await env.app.pool.query<{ payload: { rule_breaks: RuleBreakBody[]; order_id: string } }>(
      "select payload from preorder_webhook_events where order_id = $1 and topic = 'preorder_order.rules_broken'",
      [id],
    );
    expect(rows[0]?.payload).toMatchObject({ order_id: id, rule_breaks: body.rule_breaks });
    await waitFor("the rules_broken event delivered", async () => (topics.includes("preorder_order.rules_broken") ? true : undefined));
    const limits = await invoke(env.app, "GET", `/preorders/offers/${offer.id}/limits`, { key: env.key });
    expect(limits.body).toMatchObject({ total: { max: 1, current_count: 3 } });
  });

  it("an order within every limit breaks nothing and gets no rule tag or event", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId, { limits: { per_order: { min: 1, max: 2 }, per_customer: { max: 5 }, total: { max: 10 } } });
    const { id, body } = await order(offer.plan, [{ variant: 101, quantity: 2 }, { variant: 102, quantity: 2 }]);
    expect(body.rule_breaks).toEqual([]);
    expect(body.app_tags.filter((t) => t.startsWith("preorder-limit"))).toEqual([]);
    expect(await eventTopics(id)).toEqual(["preorder_order.created"]);
  });

  it("per_order counts each variant's units in the order: min 2 is broken by a line of 1, max 2 by two lines of one variant", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId, { limits: { per_order: { min: 2, max: 2 } } });
    const { body } = await order(offer.plan, [{ variant: 101, quantity: 1 }, { variant: 102, quantity: 2 }, { variant: 103, quantity: 2 }, { variant: 103, quantity: 1 }]);
    expect(body.rule_breaks).toEqual([
      { offer_id: offer.id, rule: "per_order.min", variant_id: variantGid(101), limit: 2, units: 1 },
      { offer_id: offer.id, rule: "per_order.max", variant_id: variantGid(103), limit: 2, units: 3 },
    ]);
    expect(body.app_tags).toEqual(expect.arrayContaining(["preorder-limit-exceeded", "preorder-limit-per-order"]));
  });

  it("per_customer.max counts the customer's units over their live orders of the offer, not other customers'", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId, { limits: { per_customer: { max: 2 } } });
    expect((await order(offer.plan, [{ variant: 101, quantity: 2 }], "repeat@example.com")).body.rule_breaks).toEqual([]);
    expect((await order(offer.plan, [{ variant: 101, quantity: 2 }], "other@example.com")).body.rule_breaks).toEqual([]);
    const second = await order(offer.plan, [{ variant: 102, quantity: 1 }], "repeat@example.com");
    expect(second.body.rule_breaks).toEqual([{ offer_id: offer.id, rule: "per_customer.max", variant_id: null, limit: 2, units: 3 }]);
    expect(second.body.app_tags).toEqual(expect.arrayContaining(["preorder-limit-exceeded", "preorder-limit-per-customer"]));
  });

  it("checkout.mixed_cart.allowed false: an order with a preorder line and an in-stock line is tagged preorder-mixed-cart", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId, { checkout: { mixed_cart: { allowed: false } } });
    const { id, body } = await order(offer.plan, [{ variant: 101, quantity: 1 }, { variant: 555, quantity: 1, preorder: false }]);
    expect(body.rule_breaks).toEqual([{ offer_id: offer.id, rule: "mixed_cart", variant_id: null, limit: null, units: null }]);
    expect(body.app_tags).toContain("preorder-mixed-cart");
    expect(body.app_tags).not.toContain("preorder-limit-exceeded");
    expect(await eventTopics(id)).toEqual(["preorder_order.created", "preorder_order.rules_broken"]);
    const allowed = await insertOffer(env.app.pool, env.shopId);
    expect((await order(allowed.plan, [{ variant: 101, quantity: 1 }, { variant: 555, quantity: 1, preorder: false }])).body.rule_breaks).toEqual([]);
  });

  it("an order is judged once, when it arrives: its updates do not record the breaks or the event again", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId, { limits: { per_order: { max: 1 } } });
    const payload = orderPayload({ plan: offer.plan, email: "again@example.com" });
    payload.line_items = [{ id: payload.id * 10, variant_id: 101, product_id: 900, quantity: 2, price: "10.00", selling_plan_allocation: { selling_plan_id: offer.plan } }];
    const id = await placeOrder(env, DOMAIN, "orders/create", payload);
    await placeOrder(env, DOMAIN, "orders/paid", { ...payload, updated_at: new Date(Date.now() + 1000).toISOString(), financial_status: "paid" });
    const got = (await invoke(env.app, "GET", `/preorders/orders/${id}`, { key: env.key })).body as OrderBody;
    expect(got.rule_breaks).toHaveLength(1);
    expect(await eventTopics(id)).toEqual(["preorder_order.created", "preorder_order.rules_broken"]);
  });

  it("two orders racing for an offer's last units: the second is judged after the first commits, and is flagged", async () => {
    const settings = { limits: { total: { max: 10 } } };
    const offer = await insertOffer(env.app.pool, env.shopId, settings);
    expect((await order(offer.plan, [{ variant: 101, quantity: 9 }], "first@example.com")).body.rule_breaks).toEqual([]);
    /** An order of one unit of the offer, written in `client`'s open transaction; answers its id. */
    const oneUnit = async (client: pg.PoolClient, n: number): Promise<string> => {
      const { rows } = await client.query<{ id: string }>(
        `insert into preorder_orders (shop_id, platform_order_id, email, currency, total_price, total_outstanding, platform_created_at, platform_updated_at)
         values ($1, $2, $3, 'USD', 10, 0, now(), now()) returning id`,
        [env.shopId, `gid://shopify/Order/race-${offer.id}-${n}`, `racer-${n}@example.com`],
      );
      const id = rows[0]?.id ?? "";
      await client.query(
        `insert into preorder_order_lines (order_id, shop_id, platform_line_id, variant_id, quantity, price, selling_plan_id, offer_id)
         values ($1, $2, '1', $3, 1, 10, $4, $5)`,
        [id, env.shopId, variantGid(101), `gid://shopify/SellingPlan/${offer.plan}`, offer.id],
      );
      return id;
    };
    const a = await env.app.pool.connect();
    const b = await env.app.pool.connect();
    try {
      await a.query("begin");
      await b.query("begin");
      const orderA = await oneUnit(a, 1);
      const orderB = await oneUnit(b, 2);
      const judgedA = await findRuleBreaks(a, env.shopId, { id: orderA, email: "racer-1@example.com", customer_id: null }, [{ id: offer.id, settings }]);
      const pidB = (await b.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]?.pid;
      // B's lines are written; its judgement waits for A's transaction. Before, it counted its own
      // lines and the 9 committed ones, 10, and passed before A committed.
      const judgingB = findRuleBreaks(b, env.shopId, { id: orderB, email: "racer-2@example.com", customer_id: null }, [{ id: offer.id, settings }]);
      const lockWait = waitFor("B waiting for A's judgement", async () => {
        const { rows } = await env.app.pool.query<{ waiting: boolean }>("select wait_event = 'advisory' as waiting from pg_stat_activity where pid = $1", [pidB]);
        return rows[0]?.waiting ? ("waiting" as const) : undefined;
      });
      expect(await Promise.race([judgingB.then(() => "judged" as const), lockWait])).toBe("waiting");
      await a.query("commit");
      const judgedB = await judgingB;
      await b.query("commit");
      expect(judgedA).toEqual([]);
      expect(judgedB).toEqual([{ offer_id: offer.id, rule: "total.max", variant_id: null, limit: 10, units: 11 }]);
    } finally {
      await a.query("rollback").catch(() => undefined);
      await b.query("rollback").catch(() => undefined);
      a.release();
      b.release();
    }
  });
});
