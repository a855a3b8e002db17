import { randomBytes } from "node:crypto";
import type { Runner } from "graphile-worker";
import { expect } from "vitest";
import { syncCatalog } from "../../src/catalog/sync.ts";
import { createLogger } from "../../src/logger.ts";
import { type Emulator, type SeedOptions, startEmulator } from "../../src/platform/emulator/index.ts";
import { PlatformRuntime } from "../../src/platform/runtime.ts";
import { startWorker } from "../../src/runtime/worker.ts";
import { type TestApp, createShopWithKey, startTestApp } from "./app.ts";
import { type TestDatabase, createTestDatabase } from "./db.ts";
import { TEST_WEBHOOK_SECRET } from "./platform.ts";
import { waitFor } from "./wait.ts";

/**
 * What the offer sync, resolution and inventory tests share: a database, the real HTTP layer, the
 * emulator over HTTP, a shop connected to it with its catalog mirrored, and an in-process worker
 * to start and stop. The app and the worker use one secrets key, so the actions that call the
 * platform live open the same stored token as the worker.
 */
export interface SyncEnv {
  db: TestDatabase;
  app: TestApp;
  emulator: Emulator;
  platform: PlatformRuntime;
  key: string;
  shopId: string;
  /** Starts the worker (idempotent); stop it with stopWorker. */
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

export async function startSyncEnv(seed: SeedOptions): Promise<SyncEnv> {
  const secretsKey = randomBytes(32);
  const db = await createTestDatabase();
  const app = await startTestApp(db.url, { SECRETS_KEY: secretsKey.toString("base64"), PLATFORM_API_SECRET: TEST_WEBHOOK_SECRET });
  const log = createLogger("silent");
  const platform = new PlatformRuntime({ secretsKey, webhookSecret: TEST_WEBHOOK_SECRET, timeoutMs: 5_000, log });
  const emulator = await startEmulator({ seed, throttle: { maximumAvailable: 100_000, restoreRate: 100_000 } });
  const { shopId, apiKey } = await createShopWithKey(app.pool);
  await platform.connect(app.pool, shopId, { domain: emulator.shopDomain, graphqlUrl: emulator.graphqlUrl, accessToken: emulator.accessToken });
  await syncCatalog({ pool: app.pool, client: await platform.clientFor(app.pool, shopId), shopId, mode: "full", log });
  let runner: Runner | undefined;
  const env: SyncEnv = {
    db,
    app,
    emulator,
    platform,
    key: apiKey,
    shopId,
    async startWorker() {
      runner ??= await startWorker({ pool: app.pool, log, config: app.config, platform }, { pollInterval: 100, crontab: "" });
    },
    async stopWorker() {
      const current = runner;
      runner = undefined;
      await current?.stop();
    },
    async close() {
      await env.stopWorker();
      await emulator.close();
      await app.close();
      await db.drop();
    },
  };
  return env;
}

export interface OfferSyncRow {
  sync_status: string;
  sync_last_error: string | null;
  revision: number;
  synced_revision: number | null;
  platform_selling_plan_group_id: string | null;
  platform_selling_plan_id: string | null;
}

export async function offerSyncRow(env: SyncEnv, offerId: string): Promise<OfferSyncRow> {
  const { rows } = await env.app.pool.query<OfferSyncRow>(
    `select sync_status, sync_last_error, revision::int, synced_revision::int, platform_selling_plan_group_id, platform_selling_plan_id
     from preorder_offers where id = $1`,
    [offerId],
  );
  const row = rows[0];
  expect(row, `offer ${offerId}`).toBeDefined();
  return row as OfferSyncRow;
}

/** Waits until the offer's current revision is synced (the worker must be running). */
export function waitSynced(env: SyncEnv, offerId: string, timeoutMs = 30_000): Promise<OfferSyncRow> {
  return waitFor(
    `offer ${offerId} to be synced`,
    async () => {
      const row = await offerSyncRow(env, offerId);
      return row.sync_status === "synced" && row.synced_revision === row.revision ? row : undefined;
    },
    timeoutMs,
  );
}

/** Waits until an application job (GET /jobs/{id}) reaches a terminal status; answers its row. */
export function waitJob(env: SyncEnv, jobId: string): Promise<{ status: string; result: unknown; errors: unknown[] }> {
  return waitFor(`job ${jobId} to finish`, async () => {
    const { rows } = await env.app.pool.query<{ status: string; result: unknown; errors: unknown[] }>("select status, result, errors from jobs where id = $1", [jobId]);
    const row = rows[0];
    return row && ["completed", "failed", "cancelled"].includes(row.status) ? row : undefined;
  });
}

/** The mirrored variants of the shop, with their products' tags and collections. */
export async function mirrorVariants(env: SyncEnv): Promise<{ id: string; legacy_id: number; product_id: string; tags: string[]; collection_ids: string[] }[]> {
  const { rows } = await env.app.pool.query<{ id: string; legacy_id: string; product_id: string; tags: string[]; collection_ids: string[] }>(
    `select v.id, v.legacy_id::text, v.product_id, p.tags, p.collection_ids
     from variants v join products p on p.shop_id = v.shop_id and p.id = v.product_id
     where v.shop_id = $1 order by v.legacy_id`,
    [env.shopId],
  );
  return rows.map((r) => ({ ...r, legacy_id: Number(r.legacy_id) }));
}
