import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { wrapInLayout } from "../src/account/layout.ts";
import { Renderer } from "../src/back_in_stock/templates/render.ts";
import { unsubscribeUrl } from "../src/back_in_stock/signups/unsubscribe-link.ts";
import { createOutboxEmailSender } from "../src/channels/email-outbox.ts";
import { signWebhook } from "../src/platform/webhooks.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { seedSignups, seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { TEST_WEBHOOK_SECRET } from "./helpers/platform.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { type Delivery, postDelivery, signedDelivery } from "./helpers/webhook-delivery.ts";

/**
 * Inbound endpoints under attack: replayed or re-addressed platform webhooks, bodies PostgreSQL
 * cannot store, and unsubscribe links opened by link scanners.
 */

const DOMAIN_A = "inbound-a.platform.local";
const DOMAIN_C = "inbound-c.platform.local";
const TRICKY_TITLE = `<script>alert("x")</script> & 'Tee'`;

const env = useTestEnv({ shop: false });
let shopA: string;
let shopC: string;

beforeAll(async () => {
  ({ shopId: shopA } = await createShopWithKey(env.app.pool, "Shop A"));
  ({ shopId: shopC } = await createShopWithKey(env.app.pool, "Shop C"));
  await env.app.pool.query("update shops set platform_domain = $2 where id = $1", [shopA, DOMAIN_A]);
  await env.app.pool.query("update shops set platform_domain = $2 where id = $1", [shopC, DOMAIN_C]);
  await seedVariants(env.app.pool, shopA, [{ n: 301, product: 30, productTitle: TRICKY_TITLE, title: "M" }]);
});

const delivery = (topic: string, payload: unknown, overrides: Record<string, string> = {}): Delivery => signedDelivery(topic, payload, DOMAIN_A, overrides);
const send = (d: Delivery): Promise<{ status: number; body: unknown }> => postDelivery(env.app.origin, d);

let nextOrder = 7000;
/** A fresh order payload of shop A with a customer: what a replay would carry into another shop. */
function order(): Record<string, unknown> {
  const id = nextOrder++;
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    email: `buyer-${id}@example.com`,
    updated_at: new Date().toISOString(),
    customer: { id: 55, email: `buyer-${id}@example.com`, first_name: "Ada" },
    line_items: [],
  };
}

async function deliveries(shopId: string, webhookIds: string[]): Promise<number> {
  const { rows } = await env.app.pool.query<{ n: number }>(
    "select count(*)::int as n from webhook_deliveries where shop_id = $1 and webhook_id = any($2::text[])",
    [shopId, webhookIds],
  );
  return rows[0]?.n ?? 0;
}

describe("platform webhook replay", () => {
  it("refuses a delivery triggered longer ago than the window, even with a new webhook id", async () => {
    const old = new Date(Date.now() - 6 * 3600_000).toISOString();
    const replay = delivery("orders/create", order(), { "x-shopify-triggered-at": old });
    const answer = await send(replay);
    expect(answer).toEqual({ status: 400, body: { errors: ["Webhook delivery is older than 18000 seconds"] } });
    expect(await deliveries(shopA, [replay.headers["x-shopify-webhook-id"] ?? ""])).toBe(0);
  });

  it("requires the trigger time, and refuses one that is not a timestamp or lies in the future", async () => {
    const missing = delivery("orders/create", order());
    delete missing.headers["x-shopify-triggered-at"];
    expect((await send(missing)).status).toBe(400);
    const garbage = delivery("orders/create", order(), { "x-shopify-triggered-at": "yesterday" });
    expect(await send(garbage)).toEqual({ status: 400, body: { errors: ["X-Shopify-Triggered-At must be an ISO 8601 timestamp"] } });
    const future = delivery("orders/create", order(), { "x-shopify-triggered-at": new Date(Date.now() + 10 * 60_000).toISOString() });
    expect(await send(future)).toEqual({ status: 400, body: { errors: ["X-Shopify-Triggered-At is in the future"] } });
    const ids = [missing, garbage, future].map((d) => d.headers["x-shopify-webhook-id"] ?? "");
    expect(await deliveries(shopA, ids)).toBe(0);
  });

  it("a signed body seen before does not become new with a new webhook id and a fresh trigger time", async () => {
    const payload = order();
    const first = delivery("orders/create", payload);
    expect(await send(first)).toEqual({ status: 200, body: { status: "accepted" } });
    const replay = delivery("orders/create", payload);
    expect(await send(replay)).toEqual({ status: 200, body: { status: "duplicate" } });
    expect(await deliveries(shopA, [first.headers["x-shopify-webhook-id"] ?? "", replay.headers["x-shopify-webhook-id"] ?? ""])).toBe(1);
    // The same order under another topic is a different event (created and paid at once).
    expect(await send(delivery("orders/paid", payload))).toEqual({ status: 200, body: { status: "accepted" } });
  });

  it("refuses shop A's signed delivery re-sent with shop C's domain, under any topic", async () => {
    const payload = order();
    expect((await send(delivery("orders/create", payload))).status).toBe(200);
    for (const topic of ["orders/create", "orders/paid"]) {
      const replay = delivery(topic, payload, { "x-shopify-shop-domain": DOMAIN_C });
      expect(await send(replay), topic).toEqual({ status: 401, body: { errors: ["Webhook payload belongs to another shop"] } });
    }
    const { rows } = await env.app.pool.query("select 1 from webhook_deliveries where shop_id = $1", [shopC]);
    expect(rows).toHaveLength(0);
  });

  it("refuses a payload that names another shop than the domain header", async () => {
    const named = delivery("orders/create", { ...order(), shop_domain: DOMAIN_A }, { "x-shopify-shop-domain": DOMAIN_C });
    expect(await send(named)).toEqual({ status: 401, body: { errors: ["Webhook payload belongs to another shop"] } });
    const matching = delivery("orders/create", { ...order(), shop_domain: DOMAIN_C }, { "x-shopify-shop-domain": DOMAIN_C });
    expect(await send(matching)).toEqual({ status: 200, body: { status: "accepted" } });
  });

  it("accepts only the canonical base64 signature", async () => {
    const base = delivery("orders/create", order());
    const good = base.headers["x-shopify-hmac-sha256"] ?? "";
    expect(good).toMatch(/=$/);
    const variants = [
      `${good}AAAA`, // trailing garbage after the padding
      `${good}xyz`,
      good.replace(/=+$/, ""), // padding missing
      `${good.slice(0, -1)}==`, // padding too long
      ...(/[+/]/.test(good) ? [good.replace(/\+/g, "-").replace(/\//g, "_")] : []), // the URL-safe alphabet
    ];
    for (const signature of variants) {
      const answer = await send({ ...base, headers: { ...base.headers, "x-shopify-hmac-sha256": signature } });
      expect(answer, signature).toEqual({ status: 401, body: { errors: ["Webhook signature is missing or invalid"] } });
    }
    expect(await deliveries(shopA, [base.headers["x-shopify-webhook-id"] ?? ""])).toBe(0);
    expect((await send(base)).status).toBe(200);
  });
});

describe("platform webhook bodies PostgreSQL cannot store", () => {
  const inventory = () => ({ inventory_item_id: 301, location_id: 1, available: 2, updated_at: new Date().toISOString() });

  it.each([
    ["a NUL in a string", { ...inventory(), note: "a\u0000b" }],
    ["a NUL in a key", { ...inventory(), "k\u0000": 1 }],
    ["a lone high surrogate", { ...inventory(), note: "\ud800" }],
    ["a lone low surrogate", { ...inventory(), note: "x\udc00y" }],
  ])("answers 400 for %s and records nothing", async (_name, payload) => {
    const d = delivery("inventory_levels/update", payload);
    expect(await send(d)).toEqual({ status: 400, body: { errors: ["Request body contains a NUL character or an unpaired surrogate"] } });
    expect(await deliveries(shopA, [d.headers["x-shopify-webhook-id"] ?? ""])).toBe(0);
  });

  it("answers 400 for a body that is not UTF-8", async () => {
    const d = delivery("inventory_levels/update", inventory());
    d.body = Buffer.concat([Buffer.from('{"note":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    d.headers["x-shopify-hmac-sha256"] = signWebhook(TEST_WEBHOOK_SECRET, d.body);
    expect(await send(d)).toEqual({ status: 400, body: { errors: ["Request body is not valid UTF-8"] } });
    expect(await deliveries(shopA, [d.headers["x-shopify-webhook-id"] ?? ""])).toBe(0);
  });
});

async function signupStatus(id: string): Promise<string | undefined> {
  const { rows } = await env.app.pool.query<{ status: string }>("select status from bis_signups where id = $1", [id]);
  return rows[0]?.status;
}

async function newSignup(contact: string): Promise<string> {
  const [id] = await seedSignups(env.app.pool, shopA, [{ variant: 301, product: 30, contact, createdAt: new Date().toISOString() }]);
  if (!id) throw new Error("no signup");
  return id;
}

const formPost = (url: string, body: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });

describe("unsubscribe link", () => {
  it("GET shows a confirmation form and leaves the signup subscribed; the form's POST unsubscribes", async () => {
    const id = await newSignup("scanner@example.com");
    const url = unsubscribeUrl(env.app.origin, TEST_WEBHOOK_SECRET, id);
    for (let i = 0; i < 2; i++) {
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.headers.get("cache-control")).toBe("no-store");
      const html = await page.text();
      expect(html).toMatch(/<form method="post" action="[^"]+">/);
      expect(html).toMatch(/&(lt|#60);script&(gt|#62);/);
      expect(html).not.toContain("<script>");
      expect(await signupStatus(id)).toBe("waiting");
      if (i === 1) {
        const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1]?.replace(/&amp;/g, "&").replace(/&#38;/g, "&") ?? "";
        const submitted = await formPost(new URL(action, url).toString(), "confirm=yes");
        expect(submitted.status).toBe(200);
        const done = await submitted.text();
        expect(done).toContain("You are unsubscribed");
        expect(done).not.toContain("<form");
        expect(done).not.toContain("<script>");
      }
    }
    expect(await signupStatus(id)).toBe("unsubscribed");
  });

  it("a one-click POST (RFC 8058) unsubscribes", async () => {
    const id = await newSignup("one-click@example.com");
    const answer = await formPost(unsubscribeUrl(env.app.origin, TEST_WEBHOOK_SECRET, id), "List-Unsubscribe=One-Click");
    expect(answer.status).toBe(200);
    expect(await signupStatus(id)).toBe("unsubscribed");
  });

  it("a forged link answers an error page on GET and POST and changes nothing", async () => {
    const id = await newSignup("forged@example.com");
    const forged = unsubscribeUrl(env.app.origin, "another-secret-0123456789", id);
    for (const answer of [await fetch(forged), await formPost(forged, "List-Unsubscribe=One-Click")]) {
      expect(answer.status).toBe(403);
      expect(await answer.text()).not.toContain("<form");
    }
    expect(await signupStatus(id)).toBe("waiting");
  });

  it("the sent e-mail carries List-Unsubscribe with the signed link and List-Unsubscribe-Post; that link takes the one-click POST", async () => {
    const id = await newSignup("headers@example.com");
    const renderer = new Renderer(
      { id: shopA, name: "Shop A", url: `https://${DOMAIN_A}`, defaultLocale: "en", multiLanguage: false, productTranslations: false },
      { publicBaseUrl: env.app.origin, unsubscribeSecret: TEST_WEBHOOK_SECRET, emailFrom: "Demo <no-reply@localhost>" },
    );
    const recipient = {
      ledgerId: "ledger-inbound-1",
      signupId: id,
      stage: "initial" as const,
      channel: "email" as const,
      contact: "headers@example.com",
      locale: "en",
      firstName: "Ada",
      variantId: variantGid(301),
    };
    await renderer.prepare(env.app.pool, [recipient]);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "inbound-outbox-"));
    const sender = createOutboxEmailSender({ dir, from: "Demo <no-reply@localhost>" });
    try {
      await sender.send(wrapInLayout(await renderer.render(recipient), null));
      const raw = await fs.readFile(path.join(dir, "ledger-inbound-1.eml"), "utf8");
      const head = (raw.split(/\r?\n\r?\n/)[0] ?? "").replace(/\r?\n[ \t]+/g, " ");
      const value = (name: string) => new RegExp(`^${name}: (.*)$`, "im").exec(head)?.[1]?.trim();
      const link = unsubscribeUrl(env.app.origin, TEST_WEBHOOK_SECRET, id);
      expect(value("List-Unsubscribe")).toBe(`<${link}>`);
      expect(value("List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
      expect((await formPost(link, "List-Unsubscribe=One-Click")).status).toBe(200);
      expect(await signupStatus(id)).toBe("unsubscribed");
    } finally {
      await sender.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
