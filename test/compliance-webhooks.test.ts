import { describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { insertOffer, orderPayload, placeOrder } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";
import { postDelivery, signedDelivery, webhooksProcessed } from "./helpers/webhook-delivery.ts";

// The three mandatory compliance topics, as the emulator sends them on demand with Shopify's
// payloads (decision 0223): each acts through the delivery's job, once, whatever the redeliveries.

const env = useTestEnv({
  emulator: { seed: { products: 2, variantsPerProduct: 1, customers: 3 }, webhooks: true },
  connect: "synced",
  worker: { pollInterval: 50 },
});

async function compliance(topic: string, body: unknown = {}): Promise<{ webhook_id: string; payload: Record<string, unknown> }> {
  const response = await fetch(`${env.emulator.origin}/admin/compliance/${topic}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  const answer = (await response.json()) as { webhook_id: string; payload: Record<string, unknown> };
  await env.emulator.webhooksSettled();
  await webhooksProcessed(env.pool, env.shopId);
  return answer;
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  return invoke(env.app, method, path, { key: env.key, ...(body === undefined ? {} : { body }) });
}

interface DataRequest {
  data_request_id: string;
  customer: { id: string; email: string | null; phone: string | null };
  status: string;
  download_path: string | null;
}

/** The shop's customer (the emulator's first), their signups and orders, and another customer's. */
async function seedCustomerData() {
  const customer = env.emulator.store.customers[0];
  const other = env.emulator.store.customers[1];
  if (!customer?.email || !other?.email) throw new Error("no seeded customers");
  const variant = env.emulator.store.variants[0];
  if (!variant) throw new Error("no variant");
  await api("PATCH", "/back_in_stock/settings", { channels: { sms: { enabled: true } } });
  const signup = async (fields: Record<string, unknown>) => {
    const answer = await api("POST", "/back_in_stock/signups", { variant_id: variant.id, ...fields });
    expect(answer.status).toBe(202);
    return (answer.body as { id: string }).id;
  };
  const signups = {
    email: await signup({ channel: "email", email: customer.email.toUpperCase() }),
    sms: await signup({ channel: "sms", phone: "+1 555 625 1199" }),
    other: await signup({ channel: "email", email: other.email }),
  };
  const { plan } = await insertOffer(env.pool, env.shopId);
  const own = orderPayload({ plan, email: customer.email });
  own.customer = { id: customer.id, email: customer.email };
  // An order of theirs under another address, named by id in the request only.
  const named = orderPayload({ plan, email: "gift-address@example.com" });
  const foreign = orderPayload({ plan, email: other.email });
  const orders = {
    own: { id: await placeOrder(env, env.emulator.shopDomain, "orders/create", own), platform: own.id },
    named: { id: await placeOrder(env, env.emulator.shopDomain, "orders/create", named), platform: named.id },
    foreign: { id: await placeOrder(env, env.emulator.shopDomain, "orders/create", foreign), platform: foreign.id },
  };
  return { customer, other, signups, orders };
}

describe("compliance webhooks", () => {
  it("customers/data_request → a JSON export of what the service holds about the customer, listed and downloadable under the shop's key; customers/redact anonymises it with the reports unchanged; shop/redact deletes the shop's data", async () => {
    const { customer, other, signups, orders } = await seedCustomerData();
    // They come after the merchant uninstalled the app (shop/redact 48 hours after): taken then.
    const uninstall = await fetch(`${env.emulator.origin}/admin/app/uninstall`, { method: "POST" });
    expect(uninstall.status).toBe(200);
    await env.emulator.webhooksSettled();
    await webhooksProcessed(env.pool, env.shopId);
    const { rows: state } = await env.pool.query("select platform_uninstalled_at is not null as uninstalled from shops where id = $1", [env.shopId]);
    expect(state).toEqual([{ uninstalled: true }]);

    // customers/data_request: once, whatever the redeliveries.
    const request = await compliance("customers/data_request", { customer_id: customer.id, phone: "555-625-1199", orders: [orders.named.platform] });
    expect(request.payload).toMatchObject({ shop_id: 1, shop_domain: env.emulator.shopDomain, orders_requested: [orders.named.platform], customer: { id: customer.id, email: customer.email } });
    expect((await env.emulator.redeliver(request.webhook_id)).responseStatus).toBe(200);
    const listed = await waitFor("the data request's export", async () => {
      const answer = await api("GET", "/account/data_requests");
      expect(answer.status).toBe(200);
      const list = (answer.body as { data_requests: DataRequest[] }).data_requests;
      return list.length === 1 && list[0]?.status === "completed" ? list : undefined;
    });
    expect(listed[0]).toMatchObject({ customer: { id: String(customer.id), email: customer.email, phone: "555-625-1199" }, orders_requested: [`gid://shopify/Order/${orders.named.platform}`] });
    const download = await fetch(`${env.app.origin}${listed[0]?.download_path ?? ""}`, { headers: { "x-auth-token": env.key } });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toContain("application/json");
    const file = (await download.json()) as { back_in_stock_signups: { id: string; contact: string }[]; back_in_stock_messages: unknown[]; preorder_orders: { id: string; email: string; lines: { quantity: number }[] }[] };
    expect(file.back_in_stock_signups.map((s) => s.id).sort()).toEqual([signups.email, signups.sms].sort());
    expect(file.preorder_orders.map((o) => o.id).sort()).toEqual([orders.own.id, orders.named.id].sort());
    expect(file.preorder_orders.every((o) => o.lines.length === 1)).toBe(true);
    expect(JSON.stringify(file)).not.toContain(other.email);

    // customers/redact: the customer's rows anonymised; the counts stay.
    const summaryBefore = await api("GET", "/back_in_stock/reports/summary");
    const redact = await compliance("customers/redact", { customer_id: customer.id, phone: "555-625-1199", orders: [orders.named.platform] });
    const resent = await postDelivery(env.app.origin, signedDelivery("customers/redact", redact.payload, env.emulator.shopDomain));
    expect(resent).toEqual({ status: 200, body: { status: "duplicate" } });
    const { rows: redacted } = await env.pool.query<{ id: string; contact: string; customer_id: string | null; status: string }>(
      "select id, contact, customer_id, status from bis_signups where shop_id = $1 order by contact",
      [env.shopId],
    );
    expect(redacted.find((s) => s.id === signups.other)).toMatchObject({ contact: other.email, status: "waiting" });
    for (const id of [signups.email, signups.sms]) expect(redacted.find((s) => s.id === id)).toEqual({ id, contact: `redacted:${id}`, customer_id: null, status: "unsubscribed" });
    const summaryAfter = await api("GET", "/back_in_stock/reports/summary");
    expect((summaryAfter.body as { signups: number }).signups).toBe((summaryBefore.body as { signups: number }).signups);
    for (const order of [orders.own, orders.named]) {
      const got = await api("GET", `/preorders/orders/${order.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ id: order.id, email: null });
    }
    expect((await api("GET", `/preorders/orders/${orders.foreign.id}`)).body).toMatchObject({ email: other.email });
    const { rows: copies } = await env.pool.query<{ payload: Record<string, unknown> }>(
      "select payload from webhook_deliveries where shop_id = $1 and payload ->> 'admin_graphql_api_id' = any($2::text[]) union all select payload from platform_orders where shop_id = $1 and id = any($2::text[])",
      [env.shopId, [`gid://shopify/Order/${orders.own.platform}`, `gid://shopify/Order/${orders.named.platform}`]],
    );
    expect(copies.length).toBe(4);
    for (const { payload } of copies) expect(JSON.stringify(payload)).not.toMatch(/@example\.com|customer"/);
    const { rows: requests } = await env.pool.query("select payload -> 'customer' as customer from webhook_deliveries where shop_id = $1 and topic like 'customers/%'", [env.shopId]);
    expect(requests).toEqual([{ customer: { id: customer.id } }, { customer: { id: customer.id } }]);
    expect(await env.pool.query("select count(*)::int as n from webhook_deliveries where shop_id = $1 and topic = 'app/uninstalled'", [env.shopId])).toMatchObject({ rows: [{ n: 1 }] });

    // shop/redact: every row of the shop goes; the shop stays as a tombstone that recognises redeliveries.
    const tables = async () => {
      const { rows } = await env.pool.query<{ name: string }>("select distinct conrelid::regclass::text as name from pg_constraint where contype = 'f' and confrelid = 'shops'::regclass");
      const counts: Record<string, number> = {};
      for (const { name } of rows) {
        const { rows: n } = await env.pool.query<{ n: number }>(`select count(*)::int as n from ${name} where shop_id = $1`, [env.shopId]);
        if ((n[0]?.n ?? 0) > 0) counts[name] = n[0]?.n ?? 0;
      }
      return counts;
    };
    expect(Object.keys(await tables())).toEqual(expect.arrayContaining(["api_keys", "bis_signups", "preorder_orders", "preorder_order_lines", "variants", "products", "jobs", "exports"]));
    const shopRedact = await compliance("shop/redact");
    expect(shopRedact.payload).toEqual({ shop_id: 1, shop_domain: env.emulator.shopDomain });
    expect(await tables()).toEqual({ webhook_deliveries: 1 });
    const { rows: tombstone } = await env.pool.query("select name, platform_domain, platform_access_token is null as no_token, platform_redacted_at is not null as redacted from shops where id = $1", [env.shopId]);
    expect(tombstone).toEqual([{ name: "Redacted shop", platform_domain: env.emulator.shopDomain, no_token: true, redacted: true }]);
    expect((await api("GET", "/account/plan_usage")).status).toBe(401);
    expect((await env.emulator.redeliver(shopRedact.webhook_id)).responseStatus).toBe(200);
    // A store webhook after the redact is taken and applied to nothing: it would bring data back.
    const late = orderPayload({ plan: 1 });
    expect((await postDelivery(env.app.origin, signedDelivery("orders/create", late, env.emulator.shopDomain))).status).toBe(200);
    await webhooksProcessed(env.pool, env.shopId);
    expect(await tables()).toEqual({ webhook_deliveries: 2 });
  });
});
