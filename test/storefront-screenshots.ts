/**
 * `npm run screenshots` (second part): the storefront widget's screenshots in docs/
 * (storefront-preorder.png, storefront-notify-me.png, storefront-checkout-refused.png, and at a
 * phone's 390x844 storefront-preorder-mobile.png and storefront-notify-me-mobile.png), taken in
 * the headless Chromium of the browser tests against the emulator's online store, which loads the
 * widget from the real HTTP app over a scratch database: a shop connected to the emulator with its
 * catalog mirrored, an offer with its storefront settings synced by a worker (the variant
 * metafield), and the shop metafield written by the service from its settings.
 *
 * Environment: as test/screenshots.ts (DATABASE_URL, CHROMIUM_PATH, SCREENSHOTS_DIR).
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { cleanup, onCleanup, quietPool } from "../bench/lib.ts";
import { screenshotDatabase, screenshotsDir } from "./helpers/screenshot-target.ts";
import { syncCatalog } from "../src/catalog/sync.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { SHOP_ID } from "../src/platform/emulator/ids.ts";
import { startEmulator } from "../src/platform/emulator/index.ts";
import { PlatformRuntime } from "../src/platform/runtime.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { api, createShopWithKey, startTestApp } from "./helpers/app.ts";
import type { Page } from "playwright-core";
import { browserUnavailable, launchBrowser } from "./helpers/browser.ts";
import { TEST_WEBHOOK_SECRET } from "./helpers/platform.ts";
import { setStock } from "./helpers/storefront.ts";
import { waitFor } from "./helpers/wait.ts";

// A scratch directory unless SCREENSHOTS_DIR says (SCREENSHOTS_DIR=docs updates the tracked ones).
const OUT = screenshotsDir();

async function main(): Promise<void> {
  const unavailable = browserUnavailable();
  if (unavailable) throw new Error(unavailable);
  const log = createLogger("warn");
  const db = await screenshotDatabase("storefront-screenshots");
  process.stderr.write(`database: ${db.description}\n`);
  const pool = quietPool(db.url, 4);
  onCleanup(() => pool.end());
  await migrate(pool, log);

  const secretsKey = randomBytes(32);
  const platform = new PlatformRuntime({ secretsKey, webhookSecret: TEST_WEBHOOK_SECRET, timeoutMs: 5_000, log: createLogger("silent") });
  const overrides = { SECRETS_KEY: secretsKey.toString("base64"), PLATFORM_API_SECRET: TEST_WEBHOOK_SECRET };
  const app = await startTestApp(db.url, overrides, { platform });
  onCleanup(() => app.close());
  const emulator = await startEmulator({
    seed: { products: 12, variantsPerProduct: 2, locations: 1, markets: 2, collections: 2 },
    throttle: { maximumAvailable: 100_000, restoreRate: 100_000 },
    webhooks: { url: `${app.origin}/webhooks/platform`, secret: TEST_WEBHOOK_SECRET },
    storefront: { appEmbedUrl: `${app.origin}/storefront/widget.js`, appProxy: { url: `${app.origin}/storefront`, secret: TEST_WEBHOOK_SECRET } },
  });
  onCleanup(() => emulator.close());
  const shop = await createShopWithKey(pool, "Aurora Outfitters");
  await platform.connect(pool, shop.shopId, { domain: emulator.shopDomain, graphqlUrl: emulator.graphqlUrl, accessToken: emulator.accessToken });
  await syncCatalog({ pool, client: await platform.clientFor(pool, shop.shopId), shopId: shop.shopId, mode: "full", log });
  const workerPool = quietPool(db.url, app.config.WORKER_CONCURRENCY * 3 + 5);
  onCleanup(() => workerPool.end());
  const worker = await startWorker({ pool: workerPool, log, config: app.config, platform }, { pollInterval: 100, cron: false });
  onCleanup(() => worker.stop());

  const [preorder, soldOut, plain] = [emulator.store.variants[0], emulator.store.variants[2], emulator.store.variants[4]];
  if (!preorder || !soldOut || !plain) throw new Error("the seed has too few variants");
  setStock(emulator, preorder.id, 40);
  setStock(emulator, soldOut.id, 0);
  setStock(emulator, plain.id, 40);
  const call = async (method: string, url: string, body?: unknown) => {
    const answer = await api(app, method, url, { key: shop.apiKey, ...(body === undefined ? {} : { body }) });
    if (answer.status >= 300) throw new Error(`${method} ${url} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body as Record<string, unknown>;
  };
  const offer = (await call("POST", "/preorders/offers", { name: "Spring trail jacket", products: { variant_ids: [preorder.id] } })) as { id: string };
  const base = `/preorders/offers/${offer.id}`;
  await call("PATCH", `${base}/widget`, {
    button: { text: "Preorder now", colors: { enabled: true, text_color: "#ffffff", background_color: "#1f5f4a" } },
    badge: { enabled: true, text: "Preorder", text_color: "#1f5f4a", background_color: "#d8efe6" },
    disclaimer: { enabled: true, text: "This jacket is on preorder: it ships in March.", text_color: "#3b3b3b", background_color: "#f3f1ea", border_radius: "6px" },
  });
  await call("PATCH", `${base}/checkout`, { terms: { enabled: true, text: "I understand this item ships later than items in stock.", disable_button_until_acknowledged: true }, mixed_cart: { allowed: false, error_message: "Preorder items must be checked out on their own." } });
  await call("PATCH", `${base}/shipping`, { delivery: { type: "on_date", date: "2027-03-15T00:00:00.000Z" }, display: { show_details: true } });
  await call("POST", `${base}/payments/enable_option`, { type: "deposit", deposit_percent: 25 });
  await call("PATCH", `${base}/payments`, { show_partial_first: true, billing_widget_text: "The balance is charged when it ships." });
  await call("PATCH", `${base}/limits`, { per_order: { max: 2 }, total: { max: 50 }, display: { show_remaining: true } });
  await call("PATCH", `${base}/countdown`, { enabled: true, mode: "to_custom_date", custom_end_date: new Date(Date.now() + 9 * 86_400_000 + 5 * 3_600_000).toISOString(), style: { type: "boxed", background_color: "#f3f1ea" } });
  await call("POST", `${base}/enable`);
  await call("PATCH", "/back_in_stock/settings", { compliance: { opt_in_required: true } });
  await waitFor("the offer's sync", async () => {
    const { rows } = await pool.query<{ sync_status: string; revision: string; synced_revision: string | null }>("select sync_status, revision, synced_revision from preorder_offers where id = $1", [offer.id]);
    const row = rows[0];
    return row?.sync_status === "synced" && row.synced_revision === row.revision ? row : undefined;
  }, 60_000);
  // Sold out on the platform, selling past zero: on preorder (inventory.provider platform, decision 0205).
  setStock(emulator, preorder.id, 0, "CONTINUE");
  await waitFor("the shop metafield", async () => {
    const metafield = emulator.store.metafield("SHOP", SHOP_ID, `app--${emulator.appId}--preorder`, "shop");
    return metafield && (JSON.parse(metafield.value) as { back_in_stock: { opt_in_required: boolean } }).back_in_stock.opt_in_required ? metafield : undefined;
  }, 60_000);

  const productPage = (variant: number) => `${emulator.origin}/products/${emulator.store.productOf(emulator.store.variant(variant) ?? preorder).handle}?variant=${variant}`;
  // The desktop page last: the checkout's refusal below is taken on it.
  const sizes = [
    { suffix: "-mobile", viewport: { width: 390, height: 844 } },
    { suffix: "", viewport: { width: 1000, height: 900 } },
  ];
  let page: Page | undefined;
  let shot = async (_file: string): Promise<void> => undefined;
  for (const { suffix, viewport } of sizes) {
    const browser = await launchBrowser({ viewport });
    onCleanup(() => browser.close());
    const current = await browser.newPage();
    page = current;
    shot = async (file: string) => {
      const target = path.join(OUT, file);
      await current.screenshot({ path: target, fullPage: true });
      process.stdout.write(`${path.relative(process.cwd(), target)}\n`);
    };
    await current.goto(productPage(preorder.id));
    await current.locator(".preorder-remaining:not([hidden])").waitFor();
    await shot(`storefront-preorder${suffix}.png`);

    await current.goto(productPage(soldOut.id));
    await current.locator("[data-bis-open]").click();
    await current.fill(".bis-form input[name=email]", `shopper${suffix}@example.com`);
    await current.locator(".bis-consent input").check();
    await current.locator(".bis-submit").click();
    await current.locator(".bis-message[data-kind='success']").waitFor();
    await shot(`storefront-notify-me${suffix}.png`);
  }
  if (!page) throw new Error("no page");

  await page.goto(productPage(preorder.id));
  await page.evaluate(`(async () => {
    await fetch("/cart/add.js", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: ${plain.id}, quantity: 1 }) });
  })()`);
  await page.locator(".preorder-terms input").check();
  await page.locator("[data-preorder-button]").click();
  await page.locator(".preorder-message[data-kind='error']").waitFor();
  // Past the widget: the preorder line put in beside the in-stock one, then the checkout refuses.
  const plan = (await pool.query<{ platform_selling_plan_id: string }>("select platform_selling_plan_id from preorder_offers where id = $1", [offer.id])).rows[0]?.platform_selling_plan_id.split("/").pop();
  await page.evaluate(`fetch("/cart/add.js", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: ${preorder.id}, quantity: 3, selling_plan: ${plan} }) })`);
  await page.goto(`${emulator.origin}/cart`);
  await page.locator("#checkout-form [type=submit]").click();
  await page.locator("[data-checkout-errors]").waitFor();
  await shot("storefront-checkout-refused.png");
}

try {
  await main();
} finally {
  await cleanup();
}
