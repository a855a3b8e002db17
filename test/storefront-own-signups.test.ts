import { beforeAll, describe, expect, it } from "vitest";
import { appProxySignature } from "../src/http/storefront.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { TEST_WEBHOOK_SECRET } from "./helpers/platform.ts";

/**
 * The storefront's signup endpoint (decision 0200) answers a repeat as a new signup, so that no
 * one learns whether an address is on a product's list; the signed-in customer signing up with
 * their own account's contact may learn about their own signups (decision 0214).
 */
// Behind a proxy it trusts on loopback (TRUST_PROXY), so each post's X-Forwarded-For is its own shopper.
const env = useTestEnv({
  emulator: { seed: { products: 4, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1, customers: 2 } },
  connect: "synced",
  config: { TRUST_PROXY: "127.0.0.1, ::1" },
});
let variants: number[];
let customer: { id: number; email: string; phone: string };

function proxyQuery(customerId: number | "" = ""): string {
  const query = new URLSearchParams({ shop: env.emulator.shopDomain, logged_in_customer_id: String(customerId), path_prefix: "/apps/preorder", timestamp: String(Math.floor(Date.now() / 1000)) });
  query.set("signature", appProxySignature(TEST_WEBHOOK_SECRET, query));
  return query.toString();
}

/** Each post from its own client address: the per-address limit is not what these tests are about. */
let client = 0;
async function post(customerId: number | "", body: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  client += 1;
  const response = await fetch(`${env.app.origin}/storefront/back_in_stock/signups?${proxyQuery(customerId)}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": `198.51.100.${client}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const setStatus = (contact: string, variant: number, status: string) =>
  env.pool.query(`update bis_signups set status = $3, notified_at = case when $3 = 'notified' then now() end where contact = $1 and variant_id = $2`, [
    contact,
    `gid://shopify/ProductVariant/${variant}`,
    status,
  ]);

beforeAll(() => {
  variants = env.emulator.store.variants.slice(0, 6).map((v) => v.id);
  const added = env.emulator.store.addCustomer({ email: "Own.Customer@Example.com", phone: "+15550104321", firstName: "Ada" });
  customer = { id: added.id, email: "own.customer@example.com", phone: "+15550104321" };
});

const NEW = { status: 202, body: { status: "waiting" } };

describe("POST /storefront/back_in_stock/signups: a repeat, anonymous or signed in (decision 0214)", () => {
  it("the signed-in customer's repeat with their own address (any case) answers already_subscribed while the signup is live", async () => {
    const variant = variants[0] ?? 0;
    expect(await post(customer.id, { variant_id: variant, channel: "email", email: "own.customer@example.com" })).toEqual(NEW);
    expect(await post(customer.id, { variant_id: variant, channel: "email", email: " Own.Customer@EXAMPLE.com" })).toEqual({ status: 202, body: { status: "waiting", already_subscribed: true } });
    // pending (its alert being sent) is still live.
    await setStatus(customer.email, variant, "pending");
    expect(await post(customer.id, { variant_id: variant, channel: "email", email: customer.email })).toEqual({ status: 202, body: { status: "pending", already_subscribed: true } });
    // Notified: no longer live. The customer sees their signup's status, without already_subscribed.
    await setStatus(customer.email, variant, "notified");
    expect(await post(customer.id, { variant_id: variant, channel: "email", email: customer.email })).toEqual({ status: 202, body: { status: "notified" } });
    const { rows } = await env.pool.query<{ n: number }>("select count(*)::int as n from bis_signups where contact = $1", [customer.email]);
    expect(rows[0]?.n).toBe(1);
  });

  it("the signed-in customer without an address signs up with the account's (e-mail or phone), and their repeat is already_subscribed", async () => {
    const variant = variants[1] ?? 0;
    expect(await post(customer.id, { variant_id: variant, channel: "email" })).toEqual(NEW);
    expect(await post(customer.id, { variant_id: variant, channel: "email", email: "" })).toEqual({ status: 202, body: { status: "waiting", already_subscribed: true } });
    expect(await post(customer.id, { variant_id: variant, channel: "sms", phone: "+1 (555) 010-4321" })).toEqual(NEW);
    expect(await post(customer.id, { variant_id: variant, channel: "sms" })).toEqual({ status: 202, body: { status: "waiting", already_subscribed: true } });
    const { rows } = await env.pool.query<{ channel: string; contact: string; customer_id: string }>(
      "select channel, contact, customer_id from bis_signups where variant_id = $1 order by channel",
      [`gid://shopify/ProductVariant/${variant}`],
    );
    expect(rows).toEqual([
      { channel: "email", contact: customer.email, customer_id: `gid://shopify/Customer/${customer.id}` },
      { channel: "sms", contact: customer.phone, customer_id: `gid://shopify/Customer/${customer.id}` },
    ]);
  });

  it("an anonymous repeat answers as a new signup, whatever the signup's state (live, notified, unsubscribed)", async () => {
    const variant = variants[2] ?? 0;
    expect(await post("", { variant_id: variant, channel: "email", email: customer.email })).toEqual(NEW);
    expect(await post("", { variant_id: variant, channel: "email", email: customer.email })).toEqual(NEW);
    await setStatus(customer.email, variant, "notified");
    expect(await post("", { variant_id: variant, channel: "email", email: customer.email })).toEqual(NEW);
    await setStatus(customer.email, variant, "unsubscribed");
    expect(await post("", { variant_id: variant, channel: "email", email: customer.email })).toEqual(NEW);
    // The signup itself is the API's: still one, still unsubscribed (no consent given).
    const { rows } = await env.pool.query<{ status: string }>("select status from bis_signups where contact = $1 and variant_id = $2", [customer.email, `gid://shopify/ProductVariant/${variant}`]);
    expect(rows).toEqual([{ status: "unsubscribed" }]);
  });

  it("a signed-in customer's repeat with someone else's address answers as a new signup, live or not", async () => {
    const variant = variants[3] ?? 0;
    const other = "someone.else@example.com";
    expect(await post("", { variant_id: variant, channel: "email", email: other })).toEqual(NEW);
    expect(await post(customer.id, { variant_id: variant, channel: "email", email: other })).toEqual(NEW);
    await setStatus(other, variant, "notified");
    expect(await post(customer.id, { variant_id: variant, channel: "email", email: other })).toEqual(NEW);
    // Another customer's own address is someone else's address too.
    const [first] = env.emulator.store.customers;
    expect(first?.email).toBeTruthy();
    expect(await post(customer.id, { variant_id: variant, channel: "email", email: first?.email })).toEqual(NEW);
    expect(await post(customer.id, { variant_id: variant, channel: "email", email: first?.email })).toEqual(NEW);
  });

  it("a signed-in id the platform does not know is anyone: a repeat answers as new, and no address is a 422", async () => {
    const variant = variants[4] ?? 0;
    const unknown = 9_999_999;
    expect(await post(unknown, { variant_id: variant, channel: "email", email: "nobody@example.com" })).toEqual(NEW);
    expect(await post(unknown, { variant_id: variant, channel: "email", email: "nobody@example.com" })).toEqual(NEW);
    expect(await post(unknown, { variant_id: variant, channel: "email" })).toEqual({ status: 422, body: { errors: ["email is required"] } });
  });
});
