import { readFileSync } from "node:fs";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { APP_ACCESS_SCOPES } from "../src/platform/access-scopes.ts";
import { ADMIN_API_VERSION } from "../src/platform/api-version.ts";
import { DEFAULT_PROXY_SUBPATH } from "../src/platform/emulator/storefront/options.ts";
import { OAUTH_CALLBACK_PATH } from "../src/platform/oauth/app.ts";
import { WEBHOOK_TOPICS } from "../src/platform/webhooks.ts";
import { STOREFRONT_PREFIX } from "../src/http/storefront.ts";

/**
 * shopify.app.toml (the Shopify CLI's app configuration) says what the code does: the scopes the
 * OAuth install asks for, its callback, a subscription for every webhook topic the service
 * handles at the route it serves them on, the compliance topics, the app proxy the widget calls.
 * The theme app extension is laid out as the CLI expects.
 */
const root = new URL("../", import.meta.url);
const toml = parse(readFileSync(new URL("shopify.app.toml", root), "utf8")) as {
  client_id: string;
  application_url: string;
  embedded: boolean;
  access_scopes: { scopes: string };
  auth: { redirect_urls: string[] };
  webhooks: { api_version: string; subscriptions: { topics?: string[]; compliance_topics?: string[]; uri: string }[] };
  app_proxy: { url: string; subpath: string; prefix: string };
};
const COMPLIANCE_TOPICS = ["customers/data_request", "customers/redact", "shop/redact"];
const appOrigin = new URL(toml.application_url).origin;

describe("shopify.app.toml", () => {
  it("asks for exactly the scopes the OAuth install requests (APP_ACCESS_SCOPES)", () => {
    expect(toml.access_scopes.scopes.split(",").map((s) => s.trim()).sort()).toEqual([...APP_ACCESS_SCOPES].sort());
  });

  it("redirects OAuth to the service's callback, on the application's origin", () => {
    expect(toml.auth.redirect_urls).toEqual([`${appOrigin}${OAUTH_CALLBACK_PATH}`]);
    expect(toml.client_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it("subscribes every topic the service handles, app/uninstalled and the compliance topics, each at /webhooks/platform/<topic>, on the pinned API version", () => {
    expect(toml.webhooks.api_version).toBe(ADMIN_API_VERSION);
    const topics = toml.webhooks.subscriptions.flatMap((s) => s.topics ?? []);
    const handled = [...new Set([...WEBHOOK_TOPICS, "app/uninstalled"])].filter((t) => !COMPLIANCE_TOPICS.includes(t));
    expect(topics.sort()).toEqual(handled.sort());
    expect(toml.webhooks.subscriptions.flatMap((s) => s.compliance_topics ?? []).sort()).toEqual([...COMPLIANCE_TOPICS].sort());
    for (const subscription of toml.webhooks.subscriptions) {
      const [topic, ...more] = [...(subscription.topics ?? []), ...(subscription.compliance_topics ?? [])];
      expect(more).toEqual([]);
      expect(subscription.uri).toBe(`/webhooks/platform/${topic}`);
    }
  });

  it("proxies /apps/preorder to the service's storefront endpoints, as the widget and the emulator's store expect", () => {
    expect(toml.app_proxy).toEqual({ url: `${appOrigin}${STOREFRONT_PREFIX}`, subpath: DEFAULT_PROXY_SUBPATH, prefix: "apps" });
    const block = readFileSync(new URL("extensions/preorder-widget/blocks/app-embed.liquid", root), "utf8");
    expect(block).toContain(`"proxy_path": "/${toml.app_proxy.prefix}/${toml.app_proxy.subpath}"`);
  });

  it("the theme app extension: type theme, an app embed block targeting body that loads its asset", () => {
    const extension = parse(readFileSync(new URL("extensions/preorder-widget/shopify.extension.toml", root), "utf8")) as { type: string; name: string };
    expect(extension.type).toBe("theme");
    const block = readFileSync(new URL("extensions/preorder-widget/blocks/app-embed.liquid", root), "utf8");
    const schema = JSON.parse(/{% schema %}([\s\S]*?){% endschema %}/.exec(block)?.[1] ?? "null") as { target: string };
    expect(schema.target).toBe("body");
    const asset = /'([^']+)' \| asset_url/.exec(block)?.[1] ?? "";
    expect(readFileSync(new URL(`extensions/preorder-widget/assets/${asset}`, root), "utf8")).toContain(`/${toml.app_proxy.prefix}/${toml.app_proxy.subpath}/widget.js`);
    expect(block).toContain("shop.metafields['$app:preorder'].shop");
  });
});
