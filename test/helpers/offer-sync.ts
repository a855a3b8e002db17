import { expect } from "vitest";
import type { SeedOptions } from "../../src/platform/emulator/index.ts";
import { type TestEnv, type TestEnvOptions, startTestEnv, useTestEnv } from "./fixture.ts";
import { waitFor } from "./wait.ts";

/**
 * What the offer sync, resolution and inventory tests share: the test env with the emulator over
 * HTTP, a shop connected to it with its catalog mirrored, and a worker they start and stop.
 */
export type SyncEnv = TestEnv;

function syncEnvOptions(seed: SeedOptions): TestEnvOptions {
  return { emulator: { seed, throttle: { maximumAvailable: 100_000, restoreRate: 100_000 } }, connect: "synced" };
}

/** The file's (or describe block's) sync env, set up in beforeAll and closed in afterAll. */
export function useSyncEnv(seed: SeedOptions): SyncEnv {
  return useTestEnv(syncEnvOptions(seed));
}

/** A sync env of the test's own; close it when done. */
export function startSyncEnv(seed: SeedOptions): Promise<SyncEnv> {
  return startTestEnv(syncEnvOptions(seed));
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
