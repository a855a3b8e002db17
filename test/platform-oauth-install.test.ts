import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShop } from "../src/db/api-keys.ts";
import { APP_ACCESS_SCOPES } from "../src/platform/access-scopes.ts";
import { type Emulator, startEmulator } from "../src/platform/emulator/index.ts";
import { issueSessionToken } from "../src/platform/emulator/oauth/signing.ts";
import { installUrl, signInstallBinding } from "../src/platform/oauth/install-binding.ts";
import { routeShopToOrigin, unrouteShop } from "../src/platform/oauth/shop-origins.ts";
import { installLikeABrowser } from "../src/runtime/demo-install.ts";
import { type TestApp, startTestApp } from "./helpers/app.ts";
import { type TestDatabase, createTestDatabase } from "./helpers/db.ts";
import { TEST_WEBHOOK_SECRET, testPlatformRuntime } from "./helpers/platform.ts";

/**
 * The app's install on a store through Shopify's library (decision 0219), against the emulator's
 * OAuth endpoints on 127.0.0.1: /auth → the store's authorize → /auth/callback, the token sealed
 * into the shop row; the callback's refusals; token exchange; which shop row an install connects
 * (decision 0220).
 */
const CLIENT_ID = "test-oauth-client";
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";
const platform = testPlatformRuntime();
let db: TestDatabase;
let app: TestApp;
const emulators: Emulator[] = [];

async function store(domain: string, accessToken: string): Promise<Emulator> {
  const emulator = await startEmulator({ shopDomain: domain, accessToken, accessScopes: [], oauth: { clientId: CLIENT_ID, clientSecret: TEST_WEBHOOK_SECRET } });
  emulators.push(emulator);
  routeShopToOrigin(domain, emulator.origin);
  return emulator;
}

async function connection(shopId: string): Promise<{ domain: string | null; url: string | null; token: Buffer | null }> {
  const { rows } = await app.pool.query<{ domain: string | null; url: string | null; token: Buffer | null }>(
    "select platform_domain as domain, platform_graphql_url as url, platform_access_token as token from shops where id = $1",
    [shopId],
  );
  const row = rows[0];
  if (!row) throw new Error(`no shop ${shopId}`);
  return row;
}

function cookiesOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .filter((pair) => pair.indexOf("=") < pair.length - 1)
    .join("; ");
}

/** /auth, then the store's authorize: the callback URL the store redirects to, and the cookies /auth set. */
async function authorize(domain: string, bind?: string): Promise<{ callback: URL; cookies: string }> {
  const begin = await fetch(installUrl(app.origin, domain, bind), { redirect: "manual", headers: { "user-agent": BROWSER } });
  expect(begin.status).toBe(302);
  const approved = await fetch(begin.headers.get("location") ?? "", { redirect: "manual", headers: { "user-agent": BROWSER } });
  expect(approved.status).toBe(302);
  const cookies = cookiesOf(begin);
  return { callback: new URL(approved.headers.get("location") ?? ""), cookies };
}

async function callback(url: URL, cookies: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers: { "user-agent": BROWSER, cookie: cookies } });
  return { status: response.status, body: await response.json() };
}

/** The callback query re-signed with the app's secret, as the store would sign it. */
function resign(url: URL, change: Record<string, string>): URL {
  const params = Object.fromEntries([...url.searchParams].filter(([key]) => key !== "hmac"));
  Object.assign(params, change);
  const message = new URLSearchParams(Object.entries(params).sort(([a], [b]) => a.localeCompare(b))).toString().replace(/\+/g, "%20");
  const signed = new URL(url.pathname, url.origin);
  for (const [key, value] of Object.entries(params)) signed.searchParams.set(key, value);
  signed.searchParams.set("hmac", createHmac("sha256", TEST_WEBHOOK_SECRET).update(message).digest("hex"));
  return signed;
}

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startTestApp(db.url, {}, { oauth: { apiKey: CLIENT_ID, platform } });
});

afterAll(async () => {
  for (const emulator of emulators) {
    unrouteShop(emulator.shopDomain);
    await emulator.close();
  }
  await app?.close();
  await db?.drop();
});

describe("OAuth install", () => {
  it("auth → authorize → callback: the offline token sealed into the bound shop row, the scopes granted, and the Admin API answers with that token", async () => {
    const emulator = await store("bound-store.myshopify.com", "shpat_bound_0123456789");
    const shopId = await createShop(app.pool, "Bound Shop");
    const begin = await fetch(installUrl(app.origin, emulator.shopDomain, signInstallBinding(TEST_WEBHOOK_SECRET, shopId, emulator.shopDomain)), {
      redirect: "manual",
      headers: { "user-agent": BROWSER },
    });
    const authorizeUrl = new URL(begin.headers.get("location") ?? "");
    // The library's redirect, to the store's own origin (routed to the emulator), with the app's scopes.
    expect(authorizeUrl.origin).toBe(emulator.origin);
    expect(authorizeUrl.pathname).toBe("/admin/oauth/authorize");
    expect(authorizeUrl.searchParams.get("client_id")).toBe(CLIENT_ID);
    // The library leaves out a read scope its write scope implies: with them, the app's list.
    const requested = authorizeUrl.searchParams.get("scope")?.split(",") ?? [];
    expect([...new Set(requested.flatMap((s) => (s.startsWith("write_") ? [s, s.replace("write_", "read_")] : [s])))].sort()).toEqual([...APP_ACCESS_SCOPES].sort());
    expect(authorizeUrl.searchParams.get("redirect_uri")).toBe(`${app.origin}/auth/callback`);
    await begin.body?.cancel();

    expect(await installLikeABrowser(app.origin, emulator.shopDomain, signInstallBinding(TEST_WEBHOOK_SECRET, shopId, emulator.shopDomain))).toEqual({ shop: emulator.shopDomain, shop_id: shopId });
    const row = await connection(shopId);
    expect(row.domain).toBe(emulator.shopDomain);
    expect(row.url).toBe(`${emulator.origin}/admin/api/2026-07/graphql.json`);
    expect(row.token?.includes(Buffer.from(emulator.accessToken))).toBe(false);
    expect(platform.secrets.open(row.token ?? Buffer.alloc(0))).toBe(emulator.accessToken);
    expect(emulator.app.scopes()).toEqual([...APP_ACCESS_SCOPES].sort());
    const client = await platform.clientFor(app.pool, shopId);
    const answer = await client.request<{ shop: { name: string } }>("query ShopName { shop { name } }");
    expect(answer.shop.name).toBe("Demo Store");
  });

  it("an install of a store no shop knows creates its shop; a reinstall connects the same shop again", async () => {
    const emulator = await store("fresh-store.myshopify.com", "shpat_fresh_0123456789");
    const first = await installLikeABrowser(app.origin, emulator.shopDomain);
    const { rows } = await app.pool.query<{ name: string }>("select name from shops where id = $1", [first.shop_id]);
    expect(rows[0]?.name).toBe(emulator.shopDomain);
    expect((await connection(first.shop_id)).domain).toBe(emulator.shopDomain);
    expect(await installLikeABrowser(app.origin, emulator.shopDomain)).toEqual(first);
    // A plain /auth clears the binding cookie an earlier link left: it does not bind this install.
    const plain = await fetch(installUrl(app.origin, emulator.shopDomain), { redirect: "manual", headers: { "user-agent": BROWSER } });
    expect(plain.headers.getSetCookie().find((c) => c.startsWith("preorder_install_bind="))).toMatch(/^preorder_install_bind=; .*Max-Age=0/);
    await plain.body?.cancel();
    const keys = await app.pool.query("select 1 from api_keys where shop_id = $1", [first.shop_id]);
    expect(keys.rowCount).toBe(0);
  });

  it("a reinstall after app/uninstalled works again on the store and mirrors the catalog whole", async () => {
    const emulator = await store("returning-store.myshopify.com", "shpat_returning_0123456789");
    const { shop_id: shopId } = await installLikeABrowser(app.origin, emulator.shopDomain);
    const fullSyncs = async () =>
      (await app.pool.query("select 1 from jobs where shop_id = $1 and kind = 'catalog_sync' and payload->>'mode' = 'full' and status = 'queued'", [shopId])).rowCount;
    expect(await fullSyncs()).toBe(1);
    // The first mirror ran; a plain reinstall of an installed app queues no second one.
    await app.pool.query("update jobs set status = 'completed', finished_at = now() where shop_id = $1 and kind = 'catalog_sync'", [shopId]);
    await installLikeABrowser(app.origin, emulator.shopDomain);
    expect(await fullSyncs()).toBe(0);

    // The merchant uninstalls: the store revokes the token, app/uninstalled drops it (as its job does).
    emulator.app.uninstall();
    await app.pool.query("update shops set platform_access_token = null, platform_uninstalled_at = now() where id = $1", [shopId]);
    await installLikeABrowser(app.origin, emulator.shopDomain);
    const { rows } = await app.pool.query<{ uninstalled: boolean }>("select platform_uninstalled_at is not null as uninstalled from shops where id = $1", [shopId]);
    expect(rows[0]?.uninstalled).toBe(false);
    expect(emulator.app.isInstalled()).toBe(true);
    const client = await platform.clientFor(app.pool, shopId);
    expect((await client.request<{ shop: { name: string } }>("query ShopName { shop { name } }")).shop.name).toBe("Demo Store");
    // What changed on the store while uninstalled reached no webhook: the catalog is mirrored whole.
    expect(await fullSyncs()).toBe(1);
  });

  it("the callback refuses a bad hmac, a state not the cookie's, and a shop host that is not a myshopify.com store", async () => {
    const emulator = await store("refused-store.myshopify.com", "shpat_refused_0123456789");
    const refused = { status: 400, body: { errors: ["The install could not be verified: start it again from the store"] } };

    const tampered = await authorize(emulator.shopDomain);
    tampered.callback.searchParams.set("hmac", "0".repeat(64));
    expect(await callback(tampered.callback, tampered.cookies)).toEqual(refused);

    const one = await authorize(emulator.shopDomain);
    const other = await authorize(emulator.shopDomain);
    expect(await callback(other.callback, one.cookies)).toEqual(refused);
    expect(await callback(other.callback, "")).toEqual(refused);

    const offStore = await authorize(emulator.shopDomain);
    expect(await callback(resign(offStore.callback, { shop: "attacker.example.com" }), offStore.cookies)).toEqual(refused);

    const { rows } = await app.pool.query("select 1 from shops where platform_domain = $1", [emulator.shopDomain]);
    expect(rows).toHaveLength(0);
    // The untouched callback still goes through: the refusals above were for what they changed.
    const good = await authorize(emulator.shopDomain);
    expect((await callback(good.callback, good.cookies)).status).toBe(200);
  });

  it("/auth refuses a shop that is not a store's domain, and an install link bound to another store or changed", async () => {
    const shopId = await createShop(app.pool, "Link Shop");
    const answer = async (url: string) => {
      const response = await fetch(url, { redirect: "manual", headers: { "user-agent": BROWSER } });
      return { status: response.status, body: await response.json() };
    };
    expect(await answer(installUrl(app.origin, "attacker.example.com"))).toEqual({ status: 400, body: { errors: ["shop must be a store's myshopify.com domain"] } });
    const invalid = { status: 400, body: { errors: ["The install link is not valid for this store (expired, changed or not signed by this app)"] } };
    expect(await answer(installUrl(app.origin, "link-store.myshopify.com", signInstallBinding(TEST_WEBHOOK_SECRET, shopId, "other-store.myshopify.com")))).toEqual(invalid);
    expect(await answer(installUrl(app.origin, "link-store.myshopify.com", signInstallBinding("another-secret-0123456789abcdef", shopId, "link-store.myshopify.com")))).toEqual(invalid);
    const otherShop = await createShop(app.pool, "Someone Else's Shop");
    const rebound = signInstallBinding(TEST_WEBHOOK_SECRET, shopId, "link-store.myshopify.com").replace(shopId, otherShop);
    expect(await answer(installUrl(app.origin, "link-store.myshopify.com", rebound))).toEqual(invalid);
  });

  it("a store connected to one shop cannot be bound to another by a link", async () => {
    const emulator = await store("held-store.myshopify.com", "shpat_held_0123456789");
    const holder = await createShop(app.pool, "Holder");
    await installLikeABrowser(app.origin, emulator.shopDomain, signInstallBinding(TEST_WEBHOOK_SECRET, holder, emulator.shopDomain));
    const other = await createShop(app.pool, "Other");
    await expect(installLikeABrowser(app.origin, emulator.shopDomain, signInstallBinding(TEST_WEBHOOK_SECRET, other, emulator.shopDomain))).rejects.toThrow(/409/);
    expect((await connection(holder)).domain).toBe(emulator.shopDomain);
    expect((await connection(other)).domain).toBeNull();
  });
});

describe("the store's token endpoint", () => {
  it("answers a wrong code and a wrong client secret as the platform does", async () => {
    const emulator = await store("token-store.myshopify.com", "shpat_token_0123456789");
    const post = async (body: Record<string, string>) => {
      const response = await fetch(`${emulator.origin}/admin/oauth/access_token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { status: response.status, body: await response.json() };
    };
    const { callback: url } = await authorize(emulator.shopDomain);
    const code = url.searchParams.get("code") ?? "";
    expect(await post({ client_id: CLIENT_ID, client_secret: "wrong-secret", code })).toEqual({ status: 400, body: { error: "invalid_client", error_description: "Client credentials are invalid" } });
    expect(await post({ client_id: CLIENT_ID, client_secret: TEST_WEBHOOK_SECRET, code: "not-a-code" })).toEqual({
      status: 400,
      body: { error: "invalid_request", error_description: "The authorization code was not found or was already used" },
    });
    expect(await post({ client_id: CLIENT_ID, client_secret: TEST_WEBHOOK_SECRET, code })).toEqual({ status: 200, body: { access_token: emulator.accessToken, scope: [...APP_ACCESS_SCOPES].sort().join(",") } });
    // A code is good once.
    expect((await post({ client_id: CLIENT_ID, client_secret: TEST_WEBHOOK_SECRET, code })).status).toBe(400);
  });
});

describe("token exchange", () => {
  it("an embedded app's session token is verified and exchanged for the store's offline token; a forged one is refused", async () => {
    const emulator = await store("embedded-store.myshopify.com", "shpat_embedded_0123456789");
    const now = Math.floor(Date.now() / 1000);
    const exchange = async (token: string) => {
      const response = await fetch(`${app.origin}/auth/token-exchange`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, body: (await response.json()) as { shop?: string; shop_id?: string; errors?: string[] } };
    };
    const forged = await exchange(issueSessionToken(CLIENT_ID, "not-the-app-secret-0123456789", emulator.shopDomain, now));
    expect(forged).toEqual({ status: 401, body: { errors: ["The session token is not valid"] } });
    expect(await exchange(issueSessionToken("another-app", TEST_WEBHOOK_SECRET, emulator.shopDomain, now))).toEqual(forged);
    expect(await exchange(issueSessionToken(CLIENT_ID, TEST_WEBHOOK_SECRET, emulator.shopDomain, now - 3600))).toEqual(forged);

    const answer = await exchange(issueSessionToken(CLIENT_ID, TEST_WEBHOOK_SECRET, emulator.shopDomain, now));
    expect(answer.status).toBe(200);
    expect(answer.body.shop).toBe(emulator.shopDomain);
    const row = await connection(answer.body.shop_id ?? "");
    expect(platform.secrets.open(row.token ?? Buffer.alloc(0))).toBe(emulator.accessToken);
  });
});
