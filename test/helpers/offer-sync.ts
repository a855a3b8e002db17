import { expect } from "vitest";
import type { SeedOptions } from "../../src/platform/emulator/index.ts";
import { sellingPlanGroupVariantIds } from "../../src/platform/operations/selling-plans.ts";
import { type TestEnv, type TestEnvOptions, startTestEnv, useTestEnv } from "./fixture.ts";
import { waitFor } from "./wait.ts";

/**
 * What the offer sync, resolution and inventory tests share: the test env with the emulator over
 * HTTP, a shop connected to it with its catalog mirrored, and a worker they start and stop.
 */
type SyncEnv = TestEnv;

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

/** The offer's sync state, its queued syncs and its resolution, for a wait that ran long. */
async function syncDiagnosis(env: SyncEnv, offerId: string): Promise<string> {
  const dump = async (sql: string) => JSON.stringify((await env.app.pool.query(sql, [offerId]).catch((error: unknown) => ({ rows: [String(error)] }))).rows);
  return [
    `offer ${await dump("select status, sync_status, revision, synced_revision, sync_last_error, updated_at, now() as now from preorder_offers where id = $1")}`,
    `queue ${await dump("select id, task_identifier, key, run_at, attempts, max_attempts, last_error, locked_at from graphile_worker.jobs where key = 'offer_sync:' || $1::text or task_identifier like 'preorders_offer%'")}`,
    `resolution ${await dump("select r.job_id, r.resolved_at, j.status, j.attempts, j.errors from preorder_offer_resolutions r left join jobs j on j.id = r.job_id where r.offer_id = $1")}`,
  ].join("\n");
}

/**
 * Waits until the offer's current revision is synced (the worker must be running). Past
 * `warnAfterMs` it prints the sync's state and waits on, to `timeoutMs`: a sync deferred behind a
 * resolution (run.ts) runs again after 60 s at the latest (a worker started with
 * `offerSyncDeferSeconds` defers by that instead), and CI once saw a sync take longer than
 * 30 s on a loaded machine, which this shows the state of.
 */
export async function waitSynced(env: SyncEnv, offerId: string, timeoutMs = 90_000, warnAfterMs = 30_000): Promise<OfferSyncRow> {
  const probe = async () => {
    const row = await offerSyncRow(env, offerId);
    return row.sync_status === "synced" && row.synced_revision === row.revision ? row : undefined;
  };
  try {
    return await waitFor(`offer ${offerId} to be synced`, probe, Math.min(warnAfterMs, timeoutMs));
  } catch (error) {
    if (timeoutMs <= warnAfterMs) throw error;
    console.warn(`offer ${offerId} not synced after ${warnAfterMs} ms; waiting on:\n${await syncDiagnosis(env, offerId)}`);
  }
  try {
    return await waitFor(`offer ${offerId} to be synced`, probe, timeoutMs - warnAfterMs);
  } catch (error) {
    console.error(`offer ${offerId} not synced after ${timeoutMs} ms:\n${await syncDiagnosis(env, offerId)}`);
    throw error;
  }
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

/** The variant ids a selling plan group holds on the platform (the emulator), sorted. */
export async function groupVariants(env: SyncEnv, groupId: string): Promise<string[]> {
  const client = await env.platform.clientFor(env.app.pool, env.shopId);
  const found: string[] = [];
  for await (const page of sellingPlanGroupVariantIds(client, groupId)) found.push(...page);
  return found.sort();
}
