import type pg from "pg";
import { withTransaction } from "../core/db.ts";
import { z } from "zod";
import { type JobHandle, declareJob, enqueueJob } from "../core/jobs.ts";
import type { SyncMode } from "./sync.ts";

/** Application job: mirrors one shop's catalog (its run: src/catalog/jobs/sync.ts). */
export const catalogSyncJob = declareJob({ name: "catalog_sync", payload: z.object({ mode: z.enum(["full", "incremental"]) }) });

/**
 * Queues a catalog sync for the shop unless one is already queued or running: syncs coalesce per
 * shop. Answers the new job's handle, or undefined when it coalesced into an existing one.
 */
export async function enqueueCatalogSync(pool: pg.Pool, shopId: string, mode: SyncMode): Promise<JobHandle | undefined> {
  return withTransaction(pool, async (db) => {
    await db.query("select pg_advisory_xact_lock(hashtext('catalog_sync:' || $1))", [shopId]);
    const { rowCount } = await db.query(
      "select 1 from jobs where shop_id = $1 and kind = $2 and status in ('queued', 'running')",
      [shopId, catalogSyncJob.name],
    );
    if ((rowCount ?? 0) > 0) return undefined;
    return enqueueJob(db, catalogSyncJob, { mode }, { shopId, maxAttempts: 5 });
  });
}

/** Shops connected to the platform; `needingFull` narrows to those never fully synced. */
export async function connectedShops(pool: pg.Pool, needingFull = false): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `select s.id from shops s left join catalog_sync_state st on st.shop_id = s.id
     where s.platform_graphql_url is not null and s.platform_access_token is not null
       and (not $1 or st.last_full_sync_at is null)
     order by s.created_at`,
    [needingFull],
  );
  return rows.map((r) => r.id);
}
