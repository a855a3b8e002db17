import { mkdtemp, rm } from "node:fs/promises";
import { runNextBatchNow } from "./helpers/alert-runs.ts";
import os from "node:os";
import path from "node:path";
import type { Runner } from "graphile-worker";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeChannelsOf } from "../src/actions/back_in_stock/alerts/deps.ts";
import { alertRunKey } from "../src/actions/back_in_stock/alerts/runs.ts";
import { syncCatalog } from "../src/catalog/sync.ts";
import { type Emulator, startEmulator } from "../src/platform/emulator/index.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { type TestApp, api, createShopWithKey, startTestApp } from "./helpers/app.ts";
import { type TestDatabase, createTestDatabase } from "./helpers/db.ts";
import { TEST_WEBHOOK_SECRET, testPlatformRuntime } from "./helpers/platform.ts";
import { type SmtpSink, startSmtpSink } from "./helpers/smtp-sink.ts";
import { waitFor } from "./helpers/wait.ts";

// The whole path against the store platform emulator over HTTP: its signed inventory and order
// webhooks, the live stock read before each batch.

let db: TestDatabase;
let app: TestApp;
let sink: SmtpSink;
let emulator: Emulator;
let workerPool: pg.Pool;
let runner: Runner;
let dataDir: string;
const platform = testPlatformRuntime();

beforeAll(async () => {
  sink = await startSmtpSink();
  db = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), "alerts-emulator-"));
  app = await startTestApp(db.url, { SMTP_URL: sink.url, DATA_DIR: dataDir });
  emulator = await startEmulator({
    seed: { products: 2, variantsPerProduct: 1, customers: 2 },
    webhooks: { url: `${app.origin}/webhooks/platform`, secret: TEST_WEBHOOK_SECRET },
  });
  workerPool = new pg.Pool({ connectionString: db.url, max: 10 });
  workerPool.on("error", () => undefined);
  runner = await startWorker({ pool: workerPool, log: app.log, config: app.config, platform }, { pollInterval: 50, crontab: "" });
});

afterAll(async () => {
  await runner.stop();
  await closeChannelsOf(app.config);
  await workerPool.end();
  await emulator.close();
  await app.close();
  await sink.close();
  await db.drop();
  await rm(dataDir, { recursive: true, force: true });
});

async function admin(pathname: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${emulator.origin}${pathname}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.ok).toBe(true);
  return response.json();
}

async function settled(shopId: string): Promise<void> {
  await emulator.webhooksSettled();
  await waitFor("webhooks processed", async () => {
    const { rows } = await app.pool.query("select 1 from webhook_deliveries where shop_id = $1 and processed_at is null", [shopId]);
    return rows.length === 0 ? true : undefined;
  });
}

describe("alerts against the platform emulator", () => {
  it("a restock on the platform alerts the oldest; a sale the webhook did not announce stops the run at the live re-read; an order converts", async () => {
    const { shopId, apiKey } = await createShopWithKey(app.pool, "Emulated Shop");
    await platform.connect(app.pool, shopId, { domain: emulator.shopDomain, graphqlUrl: emulator.graphqlUrl, accessToken: emulator.accessToken });
    const store = emulator.store;
    const variant = store.variants[0];
    if (!variant) throw new Error("no variant");
    const index = store.variantIndex(variant);
    for (const location of store.activeLocations()) store.setAvailable(index, location, 0);
    await syncCatalog({ pool: app.pool, client: await platform.clientFor(app.pool, shopId), shopId, mode: "full", log: app.log });
    const variantId = `gid://platform/ProductVariant/${variant.id}`;
    expect(await api(app, "PATCH", "/back_in_stock/settings", { key: apiKey, body: { delivery: { batch_multiplier: 1, batch_interval_seconds: 3600 } } })).toMatchObject({ status: 202 });
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4]) {
      const answer = await api(app, "POST", "/back_in_stock/signups", { key: apiKey, body: { variant_id: variant.id, channel: "email", email: `emu-${n}@example.com` } });
      expect(answer.status).toBe(202);
      ids.push((answer.body as { id: string }).id);
    }

    await admin("/admin/inventory", { variant_id: variant.id, available: 2 });
    await settled(shopId);
    await waitFor("two alerts", async () => (sink.messages.filter((m) => m.to.startsWith("emu-")).length === 2 ? true : undefined));
    expect(sink.messages.filter((m) => m.to.startsWith("emu-")).map((m) => m.to).sort()).toEqual(["emu-1@example.com", "emu-2@example.com"]);

    // Sold out on the platform, its webhook lost: the mirror still says 2, the live read says 0.
    for (const location of store.activeLocations()) store.setAvailable(index, location, 0);
    await runNextBatchNow(app.pool, shopId, alertRunKey(shopId, variantId));
    const stopped = await waitFor("the run to stop at the live read", async () => {
      const { rows } = await app.pool.query<{ stop_reason: string; last_available: number }>(
        "select stop_reason, last_available from bis_alert_runs where shop_id = $1 and status = 'stopped'",
        [shopId],
      );
      return rows[0];
    });
    expect(stopped).toEqual({ stop_reason: "out_of_stock", last_available: 0 });
    const { rows: mirror } = await app.pool.query<{ available: number }>("select sum(available)::int as available from inventory_levels where shop_id = $1 and inventory_item_id = $2", [shopId, `gid://platform/InventoryItem/${store.inventoryItemId(index)}`]);
    expect(mirror[0]?.available).toBe(2);
    expect(sink.messages.filter((m) => m.to.startsWith("emu-"))).toHaveLength(2);

    // The first customer buys: the platform's orders/create webhook converts that signup.
    await admin("/admin/orders", { email: "emu-1@example.com", line_items: [{ variant_id: variant.id, quantity: 1 }] });
    await settled(shopId);
    const { rows } = await app.pool.query<{ id: string; status: string; converted_order_id: string | null }>(
      "select id, status, converted_order_id from bis_signups where id = any($1::uuid[])",
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(ids.map((id) => byId.get(id)?.status)).toEqual(["converted", "notified", "waiting", "waiting"]);
    expect(byId.get(ids[0] ?? "")?.converted_order_id).toMatch(/^gid:\/\/platform\/Order\/\d+$/);
  });
});
