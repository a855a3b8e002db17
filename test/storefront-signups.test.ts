import { beforeAll, describe, expect, it } from "vitest";
import { appProxySignature } from "../src/http/storefront.ts";
import { invoke } from "./helpers/app.ts";
import { newShop, seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { TEST_WEBHOOK_SECRET } from "./helpers/platform.ts";

/**
 * The storefront's "notify me" form posts through the platform's app proxy: the query is signed
 * with the app's secret; no API key. The signup is the same as POST /back_in_stock/signups.
 */
// The app proxy reaches the service through a proxy it trusts on loopback (TRUST_PROXY): X-Forwarded-For names the shopper.
const env = useTestEnv({ shop: "Storefront Shop", config: { TRUST_PROXY: "127.0.0.1, ::1" } });
let shop: { shopId: string; key: string; domain: string };

/** The query the app proxy appends, signed as the platform signs it (or with `secret`). */
function proxyQuery(domain: string, extra: Record<string, string> = {}, secret = TEST_WEBHOOK_SECRET, at = Date.now()): string {
  const query = new URLSearchParams({ shop: domain, logged_in_customer_id: "", path_prefix: "/apps/notify", timestamp: String(Math.floor(at / 1000)), ...extra });
  query.set("signature", appProxySignature(secret, query));
  return query.toString();
}

async function post(query: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: { errors?: string[]; status?: string } }> {
  const response = await fetch(`${env.app.origin}/storefront/back_in_stock/signups?${query}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.7", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { errors?: string[]; status?: string } };
}

beforeAll(async () => {
  shop = await newShop(env.app, "Storefront Proxy Shop");
  await seedVariants(env.app.pool, shop.shopId, [{ n: 7001, product: 70, available: 0 }]);
});

describe("POST /storefront/back_in_stock/signups (the platform's app proxy)", () => {
  it("creates the signup for the shop the signed query names, with the signed customer, and answers only its status", async () => {
    const answer = await post(proxyQuery(shop.domain, { logged_in_customer_id: "5550001" }), { variant_id: 7001, channel: "email", email: "Shopper@Example.com", customer_id: "999" });
    expect(answer).toEqual({ status: 202, body: { status: "waiting" } });
    const list = await invoke(env.app, "GET", `/back_in_stock/signups?variant_id=7001`, { key: shop.key });
    const signups = (list.body as { signups: { email: string | null; customer_id: string | null; variant_id: string }[] }).signups;
    expect(signups).toHaveLength(1);
    // The customer is the platform's signed id, not the one the page sent.
    expect(signups[0]).toMatchObject({ email: "shopper@example.com", customer_id: "gid://shopify/Customer/5550001", variant_id: variantGid(7001) });
  });

  it("stores nothing twice: the same shopper again answers the same signup", async () => {
    const body = { variant_id: 7001, channel: "email", email: "twice@example.com" };
    expect((await post(proxyQuery(shop.domain), body)).status).toBe(202);
    expect((await post(proxyQuery(shop.domain), body)).status).toBe(202);
    const { rows } = await env.app.pool.query<{ n: number }>("select count(*)::int as n from bis_signups where shop_id = $1 and contact = 'twice@example.com'", [shop.shopId]);
    expect(rows[0]?.n).toBe(1);
  });

  it("401 without a valid signature: none, a wrong secret, a changed parameter, or a stale timestamp", async () => {
    const body = { variant_id: 7001, channel: "email", email: "forged@example.com" };
    const unsigned = { status: 401, body: { errors: ["Request is not signed by the platform's app proxy"] } };
    expect(await post(`shop=${shop.domain}`, body)).toEqual(unsigned);
    expect(await post(proxyQuery(shop.domain, {}, "another-secret-0123456789"), body)).toEqual(unsigned);
    const tampered = proxyQuery(shop.domain).replace(`shop=${shop.domain}`, "shop=other-shop.platform.local");
    expect(await post(tampered, body)).toEqual(unsigned);
    expect(await post(proxyQuery(shop.domain, {}, TEST_WEBHOOK_SECRET, Date.now() - 10 * 60_000), body)).toEqual(unsigned);
    const { rows } = await env.app.pool.query<{ n: number }>("select count(*)::int as n from bis_signups where contact = 'forged@example.com'");
    expect(rows[0]?.n).toBe(0);
  });

  it("a bad body gets the API's envelope: 422 naming the fields, 400 for malformed JSON or none", async () => {
    expect(await post(proxyQuery(shop.domain), { variant_id: 7001, channel: "email", email: "not-an-email" })).toEqual({ status: 422, body: { errors: ["email must be a valid email"] } });
    expect(await post(proxyQuery(shop.domain), { variant_id: 424242, channel: "email", email: "a@example.com" })).toEqual({ status: 422, body: { errors: ["variant_id must be a variant of this shop"] } });
    expect(await post(proxyQuery(shop.domain), "{not json")).toEqual({ status: 400, body: { errors: ["Request body is not valid JSON"] } });
    expect(await post(proxyQuery(shop.domain), "")).toEqual({ status: 400, body: { errors: ["Request body is not valid JSON"] } });
  });

  it("404 for a correctly signed shop this service does not know", async () => {
    expect(await post(proxyQuery("unknown-shop.platform.local"), { variant_id: 7001, channel: "email", email: "a@example.com" })).toEqual({ status: 404, body: { errors: ["Unknown shop"] } });
  });

  it("is rate-limited per client address: the 21st signup in a minute from one address is 429, another address goes on", async () => {
    const body = (n: number) => ({ variant_id: 7001, channel: "email", email: `burst-${n}@example.com` });
    const from = { "x-forwarded-for": "198.51.100.9" };
    const statuses: number[] = [];
    for (let n = 0; n < 21; n++) statuses.push((await post(proxyQuery(shop.domain), body(n), from)).status);
    // The window may turn over during the burst: then the count starts again and nothing is refused.
    const refused = statuses.filter((s) => s === 429).length;
    expect(statuses.filter((s) => s !== 202 && s !== 429)).toEqual([]);
    if (refused > 0) expect(statuses.at(-1)).toBe(429);
    const other = await post(proxyQuery(shop.domain), body(99), { "x-forwarded-for": "198.51.100.10" });
    expect(other.status).toBe(202);
  });

  it("counts the address the proxy appended, not the client's own X-Forwarded-For entries in front of it", async () => {
    const body = (n: number) => ({ variant_id: 7001, channel: "email", email: `spoof-${n}@example.com` });
    // 41 requests: even if the minute turns over during the burst, one window holds 21 of them.
    const statuses: number[] = [];
    for (let n = 0; n < 41; n++) statuses.push((await post(proxyQuery(shop.domain), body(n), { "x-forwarded-for": `10.9.${n}.1, 198.51.100.30` })).status);
    expect(statuses.filter((s) => s !== 202 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
  });
});
