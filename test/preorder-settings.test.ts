import { createHmac } from "node:crypto";
import { type IncomingHttpHeaders, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { insertOffer, orderPayload, placeOrder, useDomain } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";

// Its endpoint is on 127.0.0.1: private targets allowed (refused by default: preorder-webhook-targets.test.ts).
const env = useTestEnv({ shop: "Settings Shop", worker: true, config: { DEVELOPER_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
const DOMAIN = "settings-shop.platform.local";
let otherKey: string;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A developer's endpoint on 127.0.0.1: answers `failFirst` requests with 500, then 204. */
let server: Server;
let endpoint: string;
const received: Received[] = [];
let failFirst = 0;

beforeAll(async () => {
  await useDomain(env.app.pool, env.shopId, DOMAIN);
  ({ apiKey: otherKey } = await createShopWithKey(env.app.pool, "Other Shop"));
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (failFirst > 0) {
        failFirst -= 1;
        res.writeHead(500).end("try later");
      } else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/preorders`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const DEFAULTS = {
  orders: { tags: [], auto_collect_enabled: true },
  notifications: { email: { enabled: true }, sms: { enabled: false }, balance_due: { days_before: 3 } },
  offer_defaults: { button_text: null, order_tags: null, auto_collect: null, balance_due_days: null },
  storefront: { show_badge_on_collection_pages: true, show_badge_on_product_pages: true, hide_dynamic_checkout_buttons: true },
};

describe("GET/PATCH /preorders/settings", () => {
  it("answers the defaults, then what the merchant set over them (deep partial, per shop)", async () => {
    expect(await invoke(env.app, "GET", "/preorders/settings", { key: env.key })).toMatchObject({ status: 200, body: DEFAULTS });
    const patched = await invoke(env.app, "PATCH", "/preorders/settings", {
      key: env.key,
      body: { orders: { tags: ["preorder-shop", "ship-later"] }, storefront: { show_badge_on_collection_pages: false } },
    });
    expect(patched.status).toBe(202);
    expect(patched.body).toEqual({
      ...DEFAULTS,
      orders: { tags: ["preorder-shop", "ship-later"], auto_collect_enabled: true },
      storefront: { ...DEFAULTS.storefront, show_badge_on_collection_pages: false },
    });
    expect((await invoke(env.app, "GET", "/preorders/settings", { key: env.key })).body).toEqual(patched.body);
    expect((await invoke(env.app, "GET", "/preorders/settings", { key: otherKey })).body).toEqual(DEFAULTS);
  });

  it("refuses unknown fields, wrong types, null and bad tags, one message per field, and saves nothing", async () => {
    const answer = await invoke(env.app, "PATCH", "/preorders/settings", {
      key: env.key,
      body: { orders: { tags: ["a,b"], auto_collect_enabled: "yes" }, notifications: { balance_due: { days_before: 61 }, email: null }, storefront: { badge: true } },
    });
    expect(answer.status).toBe(422);
    expect((answer.body as { errors: string[] }).errors.sort()).toEqual(
      [
        "orders.tags.0 must not contain a comma",
        "orders.auto_collect_enabled must be a boolean",
        "notifications.balance_due.days_before must be at most 60",
        "notifications.email must be an object",
        "storefront.badge is not allowed",
      ].sort(),
    );
    expect((await invoke(env.app, "GET", "/preorders/settings", { key: env.key })).body).toMatchObject({ orders: { tags: ["preorder-shop", "ship-later"] } });
  });

  it("orders.tags are added to each preorder order that arrives, beside its offers' tags", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId, { checkout: { order_tags: { tags: ["drop-7"] } } });
    const orderId = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, tags: "vip" }));
    const order = await invoke(env.app, "GET", `/preorders/orders/${orderId}`, { key: env.key });
    expect((order.body as { tags: string[] }).tags).toEqual(["vip", "preorder-shop", "ship-later", "drop-7"]);
  });
});

describe("developer settings", () => {
  it("answers the defaults; the webhook secret is write-only (secret_set), sealed, and required while a url is set", async () => {
    const initial = await invoke(env.app, "GET", "/preorders/developer_settings", { key: env.key });
    expect(initial).toMatchObject({
      status: 200,
      body: {
        storefront: { events_enabled: true, debug: false, selectors: { add_to_cart_button: null, price: null, product_form: null, collection_product_card: null } },
        webhook: { url: null, events: ["preorder_order.created", "preorder_order.balance_collected", "preorder_order.fulfilled", "preorder_order.cancelled", "preorder_order.rules_broken"], secret_set: false },
      },
    });
    const noSecret = await invoke(env.app, "PATCH", "/preorders/developer_settings", { key: env.key, body: { webhook: { url: endpoint } } });
    expect(noSecret).toMatchObject({ status: 422, body: { errors: ["webhook.secret is required while webhook.url is set"] } });
    const bad = await invoke(env.app, "PATCH", "/preorders/developer_settings", {
      key: env.key,
      body: { webhook: { url: "http://example.com/hook", events: ["order.paid"], secret: "short" }, storefront: { selectors: { price: "<b>" }, sparkle: true } },
    });
    expect(bad.status).toBe(422);
    expect((bad.body as { errors: string[] }).errors.sort()).toEqual(
      [
        "webhook.url must be an https URL",
        "webhook.events.0 must be one of: preorder_order.created, preorder_order.balance_collected, preorder_order.fulfilled, preorder_order.cancelled, preorder_order.rules_broken",
        "webhook.secret must be at least 16 characters, or empty to remove it",
        "storefront.selectors.price must be a CSS selector",
        "storefront.sparkle is not allowed",
      ].sort(),
    );
    const set = await invoke(env.app, "PATCH", "/preorders/developer_settings", {
      key: env.key,
      body: { webhook: { url: endpoint, secret: "whsec-0123456789abcdef" }, storefront: { selectors: { add_to_cart_button: "form[action='/cart/add'] button" }, debug: true } },
    });
    expect(set.status).toBe(202);
    expect(set.body).toMatchObject({ webhook: { url: endpoint, secret_set: true }, storefront: { debug: true, selectors: { add_to_cart_button: "form[action='/cart/add'] button" } } });
    expect(JSON.stringify(set.body)).not.toContain("whsec-0123456789abcdef");
    const { rows } = await env.app.pool.query<{ webhook_secret: Buffer }>("select webhook_secret from preorder_shop_settings where shop_id = $1", [env.shopId]);
    expect(rows[0]?.webhook_secret.toString("latin1")).not.toContain("whsec-0123456789abcdef");
    expect((await invoke(env.app, "GET", "/preorders/developer_settings", { key: otherKey })).body).toMatchObject({ webhook: { url: null, secret_set: false } });
  });

  it("with private targets allowed, takes plain http to localhost and refuses any other http URL with the same message", async () => {
    const local = await invoke(env.app, "PATCH", "/preorders/developer_settings", { key: otherKey, body: { webhook: { url: "http://localhost:8080/hooks", secret: "whsec-0123456789abcdef" } } });
    expect(local).toMatchObject({ status: 202, body: { webhook: { url: "http://localhost:8080/hooks", secret_set: true } } });
    for (const url of ["http://hooks.example.com/preorders", "ftp://localhost/hooks", "not a url"]) {
      const answer = await invoke(env.app, "PATCH", "/preorders/developer_settings", { key: otherKey, body: { webhook: { url } } });
      expect([url, answer.status, answer.body]).toEqual([url, 422, { errors: ["webhook.url must be an https URL"] }]);
    }
    const cleared = await invoke(env.app, "PATCH", "/preorders/developer_settings", { key: otherKey, body: { webhook: { url: null, secret: "" } } });
    expect(cleared).toMatchObject({ status: 202, body: { webhook: { url: null, secret_set: false } } });
  });

  it("serves the merged storefront config: events, selectors, display settings and the active offers", async () => {
    const answer = await invoke(env.app, "GET", "/preorders/developer_settings/storefront_config", { key: env.key });
    expect(answer.status).toBe(200);
    const body = answer.body as { events: { enabled: boolean; names: string[] }; debug: boolean; selectors: Record<string, unknown>; display: Record<string, unknown>; offers: { id: string }[] };
    expect(body.events).toEqual({ enabled: true, names: ["preorder:loaded", "preorder:variant_changed", "preorder:button_shown", "preorder:added_to_cart", "preorder:refused", "preorder:signup"] });
    expect(body.debug).toBe(true);
    expect(body.selectors).toMatchObject({ add_to_cart_button: "form[action='/cart/add'] button" });
    expect(body.display).toMatchObject({ show_badge_on_collection_pages: false, show_badge_on_product_pages: true });
    expect(body.offers.length).toBeGreaterThan(0);
    await invoke(env.app, "PATCH", "/preorders/developer_settings", { key: env.key, body: { storefront: { events_enabled: false } } });
    expect((await invoke(env.app, "GET", "/preorders/developer_settings/storefront_config", { key: env.key })).body).toMatchObject({ events: { enabled: false, names: [] } });
    expect((await invoke(env.app, "GET", "/preorders/developer_settings/storefront_config", { key: otherKey })).body).toMatchObject({ offers: [], display: DEFAULTS.storefront });
  });

  it("POSTs order-lifecycle events to the endpoint, signed with HMAC-SHA256, retried after a failure", { timeout: 30_000 }, async () => {
    received.length = 0;
    failFirst = 1;
    const offer = await insertOffer(env.app.pool, env.shopId);
    const payload = orderPayload({ plan: offer.plan, email: "hook@example.com", financial_status: "partially_paid", total_outstanding: "50.00" });
    const orderId = await placeOrder(env, DOMAIN, "orders/create", payload);
    const delivered = await waitFor(
      "the created event delivered",
      async () => {
        const { rows } = await env.app.pool.query<{ status: string; attempts: number; last_status: number }>(
          "select status, attempts, last_status from preorder_webhook_events where order_id = $1 and topic = 'preorder_order.created'",
          [orderId],
        );
        return rows[0]?.status === "delivered" ? rows[0] : undefined;
      },
      25_000,
    );
    expect(delivered).toMatchObject({ attempts: 2, last_status: 204 });
    expect(received).toHaveLength(2);
    const last = received[1] as Received;
    expect(last.headers["x-preorder-topic"]).toBe("preorder_order.created");
    const signature = String(last.headers["x-preorder-signature"]);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature) ?? [];
    expect(v1).toBe(createHmac("sha256", "whsec-0123456789abcdef").update(`${t ?? ""}.${last.body}`).digest("hex"));
    const body = JSON.parse(last.body) as { id: string; topic: string; data: Record<string, unknown> };
    expect(body).toMatchObject({ id: last.headers["x-preorder-event-id"], topic: "preorder_order.created", data: { order_id: orderId, status: "awaiting_balance", previous_status: null, total_outstanding: "50.00", offer_ids: [offer.id] } });

    // Paid: balance_collected. Not subscribed to fulfilled: nothing recorded for it.
    await invoke(env.app, "PATCH", "/preorders/developer_settings", { key: env.key, body: { webhook: { events: ["preorder_order.balance_collected"] } } });
    await placeOrder(env, DOMAIN, "orders/paid", { ...payload, financial_status: "paid", total_outstanding: "0.00", updated_at: new Date(Date.now() + 1000).toISOString() });
    await placeOrder(env, DOMAIN, "orders/fulfilled", { ...payload, financial_status: "paid", total_outstanding: "0.00", fulfillment_status: "fulfilled", updated_at: new Date(Date.now() + 2000).toISOString() });
    await waitFor("the balance_collected event", async () => (received.some((r) => r.headers["x-preorder-topic"] === "preorder_order.balance_collected") ? true : undefined));
    const { rows } = await env.app.pool.query<{ topic: string }>("select topic from preorder_webhook_events where order_id = $1 order by created_at", [orderId]);
    expect(rows.map((r) => r.topic)).toEqual(["preorder_order.created", "preorder_order.balance_collected"]);

    const log = await invoke(env.app, "GET", `/preorders/developer_settings/webhook_events?order_id=${orderId}`, { key: env.key });
    expect(log.status).toBe(200);
    expect(log.body).toMatchObject({
      total: 2,
      events: [
        { topic: "preorder_order.balance_collected", order_id: orderId },
        { topic: "preorder_order.created", status: "delivered", attempts: 2, last_status: 204, last_error: null, id: body.id },
      ],
    });
    expect((await invoke(env.app, "GET", "/preorders/developer_settings/webhook_events", { key: otherKey })).body).toMatchObject({ total: 0, events: [] });
    expect((await invoke(env.app, "GET", "/preorders/developer_settings/webhook_events?status=lost&topic=order.paid", { key: env.key })).body).toEqual({
      errors: [
        "status must be one of: pending, delivered, failed, skipped",
        "topic must be one of: preorder_order.created, preorder_order.balance_collected, preorder_order.fulfilled, preorder_order.cancelled, preorder_order.rules_broken",
      ],
    });

    // Removing the secret removes the endpoint's signing: the url then needs one again.
    const removed = await invoke(env.app, "PATCH", "/preorders/developer_settings", { key: env.key, body: { webhook: { secret: "" } } });
    expect(removed).toMatchObject({ status: 422, body: { errors: ["webhook.secret is required while webhook.url is set"] } });
    const off = await invoke(env.app, "PATCH", "/preorders/developer_settings", { key: env.key, body: { webhook: { url: null, secret: "" } } });
    expect(off).toMatchObject({ status: 202, body: { webhook: { url: null, secret_set: false } } });
  });
});
