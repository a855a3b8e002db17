import { describe, expect, it } from "vitest";
import { appProxySignature } from "../src/http/storefront.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { newOffer, offerCall } from "./helpers/offers.ts";
import { TEST_WEBHOOK_SECRET } from "./helpers/platform.ts";

/** The widget's script (public, cached) and the live remaining count behind the app proxy. */
const env = useTestEnv({ shop: "Widget Shop" });

describe("GET /storefront/widget.js", () => {
  it("serves the bundled widget without a key, with an ETag and Cache-Control, and 304 for the same ETag", async () => {
    const first = await fetch(`${env.app.origin}/storefront/widget.js`);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    expect(first.headers.get("cache-control")).toBe("public, max-age=300");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const code = await first.text();
    // The bundle: one script, no imports left, reading the app embed's data.
    expect(code).toContain("preorder-app-embed");
    expect(code).not.toMatch(/^import /m);
    expect(code.length).toBeLessThan(40_000);
    const again = await fetch(`${env.app.origin}/storefront/widget.js`, { headers: { "if-none-match": etag ?? "" } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
  });
});

describe("GET /storefront/preorders/offers/{id}/remaining (through the app proxy)", () => {
  const signed = (extra: Record<string, string> = {}) => {
    const query = new URLSearchParams({ shop: "", logged_in_customer_id: "", path_prefix: "/apps/preorder", timestamp: String(Math.floor(Date.now() / 1000)), ...extra });
    query.set("signature", appProxySignature(TEST_WEBHOOK_SECRET, query));
    return query.toString();
  };

  it("answers total.max less the units preordered, null without a total limit; 401 unsigned, 404 for a draft or unknown offer", async () => {
    const { rows } = await env.app.pool.query<{ platform_domain: string | null }>("select platform_domain from shops where id = $1", [env.shopId]);
    let domain = rows[0]?.platform_domain;
    if (!domain) {
      domain = "widget-shop.platform.local";
      await env.app.pool.query("update shops set platform_domain = $2 where id = $1", [env.shopId, domain]);
    }
    const id = await newOffer(env, {}, { enable: true });
    const remaining = async (offer: string, query = signed({ shop: domain })) => {
      const response = await fetch(`${env.app.origin}/storefront/preorders/offers/${offer}/remaining?${query}`);
      return { status: response.status, body: (await response.json()) };
    };
    expect(await remaining(id)).toEqual({ status: 200, body: { remaining: null } });
    expect((await offerCall(env.app, env.key, "PATCH", id, "/limits", { total: { max: 10 } })).status).toBe(202);
    expect(await remaining(id)).toEqual({ status: 200, body: { remaining: 10 } });
    expect((await remaining(id, `shop=${domain}`)).status).toBe(401);
    const draft = await newOffer(env, {});
    expect((await remaining(draft)).status).toBe(404);
    expect((await remaining("not-a-uuid")).status).toBe(404);
  });
});
