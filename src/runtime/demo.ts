import { randomBytes } from "node:crypto";
import path from "node:path";
import type pg from "pg";
import type { Config } from "../config.ts";
import { withTransaction } from "../core/db.ts";
import { createApiKey, createShop } from "../db/api-keys.ts";
import type { Log } from "../logger.ts";
import { routeShopToOrigin, unrouteShop } from "../platform/oauth/shop-origins.ts";
import type { PlatformRuntime } from "../platform/runtime.ts";
import { demoBinding, installLikeABrowser } from "./demo-install.ts";
import { enqueueShopConfigSync } from "../storefront/enqueue.ts";

/** The embedded emulator's state, under DATA_DIR. */
const EMULATOR_STATE_FILE = "platform-emulator.json";

/** The embedded emulator's store: a myshopify.com domain, as the install path accepts only a store's. */
export const DEMO_STORE_DOMAIN = "demo-store.myshopify.com";

/**
 * Creates the demo shop on first start. Answers the new API key once; undefined when the demo
 * shop already exists. Its locations, markets and catalog come from the platform sync.
 */
export async function ensureDemoShop(pool: pg.Pool, demoKey: string | undefined): Promise<{ shopId: string; apiKey: string } | undefined> {
  return withTransaction(pool, async (db) => {
    // Two processes starting at once: the second waits here, then sees the demo shop.
    await db.query("select pg_advisory_xact_lock(7215300002)");
    const existing = await db.query("select id from shops where is_demo");
    if ((existing.rowCount ?? 0) > 0) return undefined;
    const shopId = await createShop(db, "Demo Store", { demo: true });
    const { apiKey } = await createApiKey(db, shopId, demoKey);
    await db.query("update shops set published_locales = '{en,fr,de,es}' where id = $1", [shopId]);
    return { shopId, apiKey };
  });
}

/**
 * Connects the demo shop to the store platform: PLATFORM_URL when set (a custom app's Admin API
 * token, PLATFORM_ACCESS_TOKEN, for PLATFORM_SHOP_DOMAIN), else an emulator started here on
 * PLATFORM_EMULATOR_PORT that sends its webhooks to this service and keeps its state in
 * DATA_DIR/platform-emulator.json, on which the demo shop is installed through OAuth as on a real
 * store (`/auth` → the emulator's authorize → `/auth/callback`, over HTTP on 127.0.0.1, decision
 * 0219): the token is the one the emulator issued, never copied from it. Queues the write of its
 * storefront configuration metafield (the install queues it too). Answers how to stop the emulator,
 * if one was started, and the emulator's storefront page of the demo store's first product.
 */
export async function connectDemoShop(
  pool: pg.Pool,
  platform: PlatformRuntime,
  config: Config,
  log: Log,
  serviceUrl: string | undefined,
  appUrl: string | undefined = serviceUrl,
): Promise<{ close?: () => Promise<void>; storefrontUrl?: string } | undefined> {
  const { rows } = await pool.query<{ id: string }>("select id from shops where is_demo");
  const shopId = rows[0]?.id;
  if (!shopId) return undefined;
  if (config.PLATFORM_URL) {
    if (!config.PLATFORM_ACCESS_TOKEN || !config.PLATFORM_SHOP_DOMAIN) {
      throw new Error("PLATFORM_URL needs PLATFORM_ACCESS_TOKEN and PLATFORM_SHOP_DOMAIN");
    }
    await platform.connect(pool, shopId, {
      domain: config.PLATFORM_SHOP_DOMAIN,
      graphqlUrl: config.PLATFORM_URL,
      accessToken: config.PLATFORM_ACCESS_TOKEN,
    });
    await enqueueShopConfigSync(pool, shopId);
    return {};
  }
  // Loaded only here: production processes never load the emulator or its GraphQL engine.
  const { startEmulator } = await import("../platform/emulator/index.ts");
  const emulator = await startEmulator({
    port: config.PLATFORM_EMULATOR_PORT,
    shopDomain: DEMO_STORE_DOMAIN,
    // Issued to the install below; a new one each start, as nothing but the install may know it.
    accessToken: `shpat_${randomBytes(16).toString("hex")}`,
    ...(appUrl ? { oauth: { clientId: config.SHOPIFY_API_KEY, clientSecret: platform.webhookSecret, redirectUrls: [`${appUrl}/auth/callback`] } } : {}),
    // Kept across restarts: a reseeded emulator would hand the offers' selling plan group ids to new groups.
    stateFile: path.join(config.dataDir, EMULATOR_STATE_FILE),
    log: log.child({ component: "platform-emulator" }),
    ...(serviceUrl ? { webhooks: { url: `${serviceUrl}/webhooks/platform`, secret: platform.webhookSecret } } : {}),
    // Its online store (/products/<handle>) loads the service's widget and proxies /apps/preorder to the service.
    ...(serviceUrl ? { storefront: { appEmbedUrl: `${serviceUrl}/storefront/widget.js`, appProxy: { url: `${serviceUrl}/storefront`, secret: platform.webhookSecret } } } : {}),
  });
  log.info({ url: emulator.origin }, "store platform emulator listening");
  const product = emulator.store.products.find((p) => p.status === "ACTIVE");
  const storefrontUrl = product ? `${emulator.origin}/products/${product.handle}` : emulator.origin;
  if (!appUrl) {
    // No web process here to install through (a worker-only start): nothing to connect.
    return { close: () => emulator.close(), storefrontUrl };
  }
  // The only place the store's admin is not at https://<shop>: its requests go to the emulator.
  routeShopToOrigin(emulator.shopDomain, emulator.origin);
  try {
    const installed = await installLikeABrowser(appUrl, emulator.shopDomain, demoBinding(platform.webhookSecret, shopId, emulator.shopDomain));
    log.info({ shopId: installed.shop_id, shop: installed.shop }, "demo shop installed on the platform emulator through OAuth");
  } catch (error) {
    unrouteShop(emulator.shopDomain);
    await emulator.close();
    throw error;
  }
  return {
    close: async () => {
      unrouteShop(emulator.shopDomain);
      await emulator.close();
    },
    storefrontUrl,
  };
}

/**
 * The line `npm start` prints once it is up: where the API, the console, the emulator's storefront
 * and the metrics are, and the demo key when this start knows it (created now, or DEMO_API_KEY);
 * the key is stored only as a hash, so a later start can only say how to get one.
 */
export function startupLine(urls: { service: string; storefront?: string | undefined }, demo: { shopId?: string | undefined; apiKey?: string | undefined }): string {
  const parts = [
    `API ${urls.service}/api/v2/external (first call: GET /help?format=compact)`,
    `console ${urls.service}/ops`,
    ...(urls.storefront ? [`storefront ${urls.storefront}`] : []),
    `metrics ${urls.service}/metrics`,
    demo.apiKey
      ? `demo key ${demo.apiKey}`
      : `demo key: printed on the start that created the demo shop (set DEMO_API_KEY to choose it; npm run cli -- keys create --shop ${demo.shopId ?? "<demo shop id>"} makes another)`,
  ];
  return `Ready: ${parts.join(" | ")}`;
}
