import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGES } from "../src/core/errors.ts";
import { STOREFRONT_SIGNUPS_PER_MINUTE, appProxySignature } from "../src/http/storefront.ts";
import { type TestApp, startTestApp } from "./helpers/app.ts";
import { newShop, seedVariants } from "./helpers/bis-seed.ts";
import { TestClock } from "./helpers/clock.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { TEST_WEBHOOK_SECRET } from "./helpers/platform.ts";

/**
 * The storefront's signups per shopper address are counted in PostgreSQL (decision 0215): every web
 * process shares the count, so N processes do not allow N times the limit. Both apps count by one
 * test clock (their `now`), which starts a window and moves to the next by hand.
 */
const clock = new TestClock();
clock.nextWindow(60, 1);
// Behind a trusted proxy on loopback (TRUST_PROXY): X-Forwarded-For names the shopper, so one test can be many addresses.
const TRUSTED = { TRUST_PROXY: "127.0.0.1, ::1" };
const env = useTestEnv({ shop: false, now: clock.now, config: TRUSTED });
let two: TestApp;
let shop: { shopId: string; domain: string };
let otherShop: { shopId: string; domain: string };

/** The query the app proxy appends, signed now (Shopify's library checks the timestamp against the process clock; the windows go by the test clock). */
function proxyQuery(domain: string): string {
  const query = new URLSearchParams({ shop: domain, logged_in_customer_id: "", path_prefix: "/apps/notify", timestamp: String(Math.floor(Date.now() / 1000)) });
  query.set("signature", appProxySignature(TEST_WEBHOOK_SECRET, query));
  return query.toString();
}

interface Answer {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

async function signup(app: { origin: string }, domain: string, email: string, address: string): Promise<Answer> {
  const response = await fetch(`${app.origin}/storefront/back_in_stock/signups?${proxyQuery(domain)}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": address },
    body: JSON.stringify({ variant_id: 8001, channel: "email", email }),
  });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.json() };
}

async function signupsLike(pattern: string): Promise<number> {
  const { rows } = await env.app.pool.query<{ n: number }>("select count(*)::int as n from bis_signups where contact like $1", [pattern]);
  return rows[0]?.n ?? -1;
}

beforeAll(async () => {
  two = await startTestApp(env.db.url, TRUSTED, { now: clock.now });
  shop = await newShop(env.app, "Limit Shop");
  otherShop = await newShop(env.app, "Limit Other Shop");
  await seedVariants(env.app.pool, shop.shopId, [{ n: 8001, product: 80, available: 0 }]);
  await seedVariants(env.app.pool, otherShop.shopId, [{ n: 8001, product: 80, available: 0 }]);
});

afterAll(async () => {
  await two?.close();
});

describe("the storefront's signup limit, shared by every web process", () => {
  const address = "198.51.100.77";

  it("refuses the signup past the limit in total, whichever process the signups reached", async () => {
    const statuses: number[] = [];
    for (let n = 0; n < STOREFRONT_SIGNUPS_PER_MINUTE; n++) {
      statuses.push((await signup(n % 2 === 0 ? env.app : two, shop.domain, `shared-${n}@example.com`, address)).status);
    }
    expect(statuses).toEqual(Array.from({ length: STOREFRONT_SIGNUPS_PER_MINUTE }, () => 202));
    // Each process saw only half of them: an in-memory count would let these through.
    const refused = { status: 429, retryAfter: "59", body: { errors: [MESSAGES.rateLimited] } };
    expect(await signup(env.app, shop.domain, "shared-over-1@example.com", address)).toEqual(refused);
    expect(await signup(two, shop.domain, "shared-over-2@example.com", address)).toEqual(refused);
    expect(await signupsLike("shared-%")).toBe(STOREFRONT_SIGNUPS_PER_MINUTE);
    // Another address, or the same address at another shop, has a count of its own.
    expect((await signup(two, shop.domain, "shared-elsewhere@example.com", "198.51.100.78")).status).toBe(202);
    expect((await signup(env.app, otherShop.domain, "shared-other-shop@example.com", address)).status).toBe(202);
  });

  it("counts again from zero in the next window", async () => {
    clock.nextWindow(60, 30);
    expect(await signup(two, shop.domain, "next-window-1@example.com", address)).toMatchObject({ status: 202 });
    expect(await signup(env.app, shop.domain, "next-window-2@example.com", address)).toMatchObject({ status: 202 });
    expect(await signupsLike("next-window-%")).toBe(2);
  });

  it("stores no address: only a keyed hash of it, per shop", async () => {
    const { rows } = await env.app.pool.query<Record<string, unknown>>("select * from client_rate_limit_windows");
    // The windows of the three clients (address at shop, other address, address at the other shop), both windows.
    expect(rows.length).toBe(4);
    const stored = JSON.stringify(rows.map((row) => Object.values(row).map((v) => (Buffer.isBuffer(v) ? v.toString("latin1") + v.toString("hex") : String(v)))));
    for (const raw of [address, "198.51.100.78"]) {
      expect(stored).not.toContain(raw);
      // Nor its plain digest, which anyone could match against every IPv4 address.
      expect(stored).not.toContain(createHash("sha256").update(raw).digest("hex"));
    }
    expect(stored).not.toContain(shop.domain);
    for (const row of rows) expect((row.client_key as Buffer).length).toBe(32);
  });
});

describe("the shopper's address is believed only from a proxy TRUST_PROXY names", () => {
  it("reached directly (TRUST_PROXY unset), counts the socket's address: 40 spoofed X-Forwarded-For values get 20 signups; through a trusted proxy, each forwarded address counts", async () => {
    const direct = await startTestApp(env.db.url, {}, { now: clock.now });
    try {
      clock.nextWindow(60, 1);
      const spoofed: Answer[] = [];
      for (let n = 0; n < 40; n++) spoofed.push(await signup(direct, shop.domain, `spoofed-${n}@example.com`, `203.0.113.${n + 1}`));
      const accepted = spoofed.filter((answer) => answer.status === 202).length;
      expect(`${accepted} of 40 accepted`).toBe(`${STOREFRONT_SIGNUPS_PER_MINUTE} of 40 accepted`);
      expect(spoofed.slice(0, STOREFRONT_SIGNUPS_PER_MINUTE).map((a) => a.status)).toEqual(Array.from({ length: STOREFRONT_SIGNUPS_PER_MINUTE }, () => 202));
      for (const answer of spoofed.slice(STOREFRONT_SIGNUPS_PER_MINUTE)) expect(answer).toEqual({ status: 429, retryAfter: "59", body: { errors: [MESSAGES.rateLimited] } });
      expect(await signupsLike("spoofed-%")).toBe(STOREFRONT_SIGNUPS_PER_MINUTE);

      // The same 40 through the app that trusts loopback as a proxy: 40 shoppers, each under the limit.
      const forwarded: number[] = [];
      for (let n = 0; n < 40; n++) forwarded.push((await signup(env.app, otherShop.domain, `forwarded-${n}@example.com`, `203.0.113.${n + 1}`)).status);
      expect(forwarded).toEqual(Array.from({ length: 40 }, () => 202));
    } finally {
      await direct.close();
    }
  });
});
