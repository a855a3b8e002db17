import { createHmac, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ADMIN_API_VERSION } from "../src/platform/api-version.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { TEST_WEBHOOK_SECRET } from "./helpers/platform.ts";
import { insertOffer } from "./helpers/preorder-shop.ts";
import { webhooksProcessed } from "./helpers/webhook-delivery.ts";

// A delivery exactly as Shopify sends one: its raw JSON (REST shape, numeric ids beside the
// admin_graphql_api_id gids, non-ASCII text as UTF-8), the base64 HMAC-SHA256 of those bytes,
// and every X-Shopify-* header, the trigger time with Shopify's nanoseconds. Signed here with
// node:crypto, not with the service's own signWebhook, so the test does not share its code.

const env = useTestEnv({ worker: true, emulator: { seed: { products: 2, variantsPerProduct: 1 } }, connect: "synced" });

function shopifyOrder(id: number, variant: { legacyId: number; productLegacyId: number }, plan: number): Record<string, unknown> {
  const placed = "2026-11-30T17:04:11-05:00";
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    app_id: 580111,
    browser_ip: "203.0.113.7",
    buyer_accepts_marketing: false,
    cancel_reason: null,
    cancelled_at: null,
    confirmation_number: "XK1Q9ZP3A",
    confirmed: true,
    contact_email: "zoe@example.com",
    created_at: placed,
    currency: "USD",
    current_total_price: "120.00",
    customer_locale: "en-US",
    email: "zoe@example.com",
    financial_status: "partially_paid",
    fulfillment_status: null,
    name: "#1042",
    note: "Zoë's order — gift wrap",
    note_attributes: [],
    number: 42,
    order_number: 1042,
    phone: null,
    presentment_currency: "USD",
    processed_at: placed,
    source_name: "web",
    subtotal_price: "120.00",
    tags: "",
    test: false,
    total_outstanding: "60.00",
    total_price: "120.00",
    total_price_set: { shop_money: { amount: "120.00", currency_code: "USD" }, presentment_money: { amount: "120.00", currency_code: "USD" } },
    updated_at: placed,
    customer: { id: 7207311360226, email: "zoe@example.com", first_name: "Zoë", last_name: "Ng", admin_graphql_api_id: "gid://shopify/Customer/7207311360226" },
    line_items: [
      {
        id: 13967852150498,
        admin_graphql_api_id: "gid://shopify/LineItem/13967852150498",
        fulfillable_quantity: 1,
        fulfillment_service: "manual",
        gift_card: false,
        grams: 0,
        name: "Preorder item",
        price: "120.00",
        price_set: { shop_money: { amount: "120.00", currency_code: "USD" }, presentment_money: { amount: "120.00", currency_code: "USD" } },
        product_exists: true,
        product_id: variant.productLegacyId,
        properties: [],
        quantity: 1,
        requires_shipping: true,
        sku: "",
        taxable: true,
        title: "Preorder item",
        total_discount: "0.00",
        variant_id: variant.legacyId,
        variant_title: "Default Title",
        vendor: "Demo Store",
        selling_plan_allocation: { selling_plan_id: plan, price: "120.00", compare_at_price: null },
        tax_lines: [],
        discount_allocations: [],
      },
    ],
  };
}

function shopifyHeaders(topic: string | undefined, body: Buffer): Record<string, string> {
  return {
    "content-type": "application/json",
    ...(topic ? { "x-shopify-topic": topic } : {}),
    "x-shopify-hmac-sha256": createHmac("sha256", TEST_WEBHOOK_SECRET).update(body).digest("base64"),
    "x-shopify-shop-domain": env.emulator.shopDomain,
    "x-shopify-webhook-id": randomUUID(),
    "x-shopify-triggered-at": new Date().toISOString(),
    "x-shopify-api-version": ADMIN_API_VERSION,
    "x-shopify-event-id": randomUUID(),
  };
}

describe("a webhook exactly as Shopify sends it", () => {
  it("a compliance topic at the one compliance URI (/webhooks/platform, the topic in X-Shopify-Topic) is accepted; without the header it is an unknown topic", async () => {
    const body = Buffer.from(JSON.stringify({ shop_id: 954889, shop_domain: env.emulator.shopDomain, customer: { id: 191167, email: "john@example.com", phone: "555-625-1199" }, orders_to_redact: [299938] }));
    const accepted = await fetch(`${env.app.origin}/webhooks/platform`, { method: "POST", headers: shopifyHeaders("customers/redact", body), body });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ status: "accepted" });
    const unnamed = await fetch(`${env.app.origin}/webhooks/platform`, { method: "POST", headers: shopifyHeaders(undefined, body), body });
    expect(unnamed.status).toBe(404);
    await webhooksProcessed(env.pool, env.shopId);
    const { rows } = await env.pool.query("select topic, processed_at is not null as processed from webhook_deliveries where shop_id = $1 and topic = 'customers/redact'", [env.shopId]);
    expect(rows).toEqual([{ topic: "customers/redact", processed: true }]);
  });

  it("orders/create with X-Shopify-* headers and gid://shopify/ ids is accepted and recorded against the mirrored variant and the offer", async () => {
    const { rows: variants } = await env.pool.query<{ id: string; legacy_id: string; product_id: string }>(
      "select id, legacy_id, product_id from variants where shop_id = $1 order by id limit 1",
      [env.shopId],
    );
    const variant = variants[0];
    if (!variant) throw new Error("the catalog is not mirrored");
    expect(variant.id).toBe(`gid://shopify/ProductVariant/${variant.legacy_id}`);
    const { id: offerId, plan } = await insertOffer(env.pool, env.shopId);
    const orderId = 5_810_000_000_000 + Math.floor(Math.random() * 1_000_000);
    const body = Buffer.from(
      JSON.stringify(shopifyOrder(orderId, { legacyId: Number(variant.legacy_id), productLegacyId: Number(variant.product_id.split("/").pop()) }, plan)),
      "utf8",
    );
    const triggeredAt = new Date().toISOString().replace(/Z$/, "417043Z");
    const response = await fetch(`${env.app.origin}/webhooks/platform/orders/create`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Shopify-Captain-Hook",
        "x-shopify-topic": "orders/create",
        "x-shopify-hmac-sha256": createHmac("sha256", TEST_WEBHOOK_SECRET).update(body).digest("base64"),
        "x-shopify-shop-domain": env.emulator.shopDomain,
        "x-shopify-webhook-id": randomUUID(),
        "x-shopify-triggered-at": triggeredAt,
        "x-shopify-api-version": ADMIN_API_VERSION,
        "x-shopify-event-id": randomUUID(),
      },
      body,
    });
    expect(ADMIN_API_VERSION).toBe("2026-07");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "accepted" });
    await webhooksProcessed(env.pool, env.shopId);

    const { rows: recorded } = await env.pool.query<{ triggered_at: Date }>("select triggered_at from webhook_deliveries where shop_id = $1 and topic = 'orders/create'", [env.shopId]);
    expect(recorded[0]?.triggered_at.toISOString()).toBe(triggeredAt.replace(/\.(\d{3})\d+Z$/, ".$1Z"));
    const { rows: mirrored } = await env.pool.query("select id from platform_orders where shop_id = $1", [env.shopId]);
    expect(mirrored).toEqual([{ id: `gid://shopify/Order/${orderId}` }]);
    const { rows: orders } = await env.pool.query<{ id: string; platform_order_id: string; email: string; total_outstanding: string; name: string }>(
      "select id, platform_order_id, email, total_outstanding::text, name from preorder_orders where shop_id = $1",
      [env.shopId],
    );
    expect(orders).toEqual([{ id: expect.any(String) as unknown, platform_order_id: `gid://shopify/Order/${orderId}`, email: "zoe@example.com", total_outstanding: "60.00", name: "#1042" }]);
    const { rows: lines } = await env.pool.query("select variant_id, selling_plan_id, offer_id, quantity from preorder_order_lines where order_id = $1", [orders[0]?.id]);
    expect(lines).toEqual([{ variant_id: variant.id, selling_plan_id: `gid://shopify/SellingPlan/${plan}`, offer_id: offerId, quantity: 1 }]);
  });
});
