import type { Db } from "../core/db.ts";
import { conflict } from "../core/errors.ts";
import { jobHandle } from "../core/jobs.ts";
import { catalogSyncJob } from "./schedule.ts";

/**
 * How far a shop's catalog mirror is, from facts already in the database: the platform connection
 * (shops), the sync marks (catalog_sync_state), the catalog_sync jobs and the mirrored rows.
 *
 * Until a connected shop's first full sync completes, the mirror holds only part of its catalog,
 * so "this id is not in the mirror" does not mean "this id is not the shop's": the calls that look
 * ids up in the mirror, or resolve over all of it, answer 409 CATALOG_SYNC_IN_PROGRESS instead.
 * A shop not connected to the platform has nothing to wait for: its mirror is what it is.
 */

export const CATALOG_SYNC_IN_PROGRESS = "catalog sync in progress";
/** The same refusal when the latest attempt at that first sync failed: "in progress" would mislead. */
export const CATALOG_SYNC_FAILED = "catalog sync failed; it is retried by the nightly full sync or a restart (see GET /account/setup)";

export const CATALOG_STATUSES = ["not_started", "syncing", "ready", "failed"] as const;
export type CatalogStatus = (typeof CATALOG_STATUSES)[number];

export interface CatalogSyncJob {
  job_id: string;
  status_url: string;
  status: string;
  /** Variants mirrored so far by this job. */
  processed: number;
  last_error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface CatalogReadiness {
  status: CatalogStatus;
  last_synced_at: string | null;
  last_full_sync_at: string | null;
  variants_mirrored: number;
  products_mirrored: number;
  collections_mirrored: number;
  locations_mirrored: number;
  markets_mirrored: number;
  /** The shop's latest catalog_sync job, or null. */
  sync_job: CatalogSyncJob | null;
}

export interface PlatformConnectionState {
  connected: boolean;
  domain: string | null;
}

interface StateRow {
  connected: boolean;
  domain: string | null;
  last_full_sync_at: Date | null;
  last_sync_at: Date | null;
}

const connectionState = `
  select s.platform_graphql_url is not null and s.platform_access_token is not null as connected, s.platform_domain as domain,
         st.last_full_sync_at, st.last_sync_at
  from shops s left join catalog_sync_state st on st.shop_id = s.id
  where s.id = $1`;

/** True while the shop is connected and its first full catalog sync has not completed. */
async function catalogPending(db: Db, shopId: string): Promise<boolean> {
  const { rows } = await db.query<StateRow>(connectionState, [shopId]);
  const row = rows[0];
  return row !== undefined && row.connected && row.last_full_sync_at === null;
}

/**
 * 409 `catalog sync in progress` while the mirror cannot yet tell an unknown id from one not
 * mirrored yet (`catalog sync failed; ...` when the latest attempt failed).
 */
export async function assertCatalogMirrored(db: Db, shopId: string): Promise<void> {
  if (!(await catalogPending(db, shopId))) return;
  const status = (await latestSyncJob(db, shopId))?.status;
  throw conflict(status === "failed" || status === "cancelled" ? CATALOG_SYNC_FAILED : CATALOG_SYNC_IN_PROGRESS);
}

interface JobFacts {
  id: string;
  status: string;
  processed: number;
  errors: { message?: unknown }[];
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** The shop's latest catalog_sync job: only it tells where the mirror stands (an older failure retried since is history). */
async function latestSyncJob(db: Db, shopId: string): Promise<JobFacts | undefined> {
  const { rows } = await db.query<JobFacts>(
    `select id, status, processed, errors, created_at, started_at, finished_at from jobs
     where shop_id = $1 and kind = $2 order by created_at desc, id desc limit 1`,
    [shopId, catalogSyncJob.name],
  );
  return rows[0];
}

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

function presentJob(job: JobFacts | undefined): CatalogSyncJob | null {
  if (!job) return null;
  const last = job.errors.at(-1)?.message;
  return {
    ...jobHandle(job.id),
    status: job.status,
    processed: job.processed,
    last_error: typeof last === "string" ? last : null,
    created_at: job.created_at.toISOString(),
    started_at: iso(job.started_at),
    finished_at: iso(job.finished_at),
  };
}

function statusOf(state: StateRow | undefined, job: JobFacts | undefined): CatalogStatus {
  if (state?.last_full_sync_at) return "ready";
  if (job?.status === "queued" || job?.status === "running") return "syncing";
  if (job?.status === "failed" || job?.status === "cancelled") return "failed";
  return "not_started";
}

/** The shop's platform connection and the readiness of its catalog mirror. */
export async function catalogReadiness(db: Db, shopId: string): Promise<{ platform: PlatformConnectionState; catalog: CatalogReadiness }> {
  const { rows: states } = await db.query<StateRow>(connectionState, [shopId]);
  const state = states[0];
  const { rows: counts } = await db.query<Record<"variants" | "products" | "collections" | "locations" | "markets", number>>(
    `select (select count(*) from variants where shop_id = $1)::int as variants,
            (select count(*) from products where shop_id = $1)::int as products,
            (select count(*) from collections where shop_id = $1)::int as collections,
            (select count(*) from locations where shop_id = $1)::int as locations,
            (select count(*) from markets where shop_id = $1)::int as markets`,
    [shopId],
  );
  const job = await latestSyncJob(db, shopId);
  return {
    platform: { connected: state?.connected ?? false, domain: state?.domain ?? null },
    catalog: {
      status: statusOf(state, job),
      last_synced_at: iso(state?.last_sync_at ?? null),
      last_full_sync_at: iso(state?.last_full_sync_at ?? null),
      variants_mirrored: counts[0]?.variants ?? 0,
      products_mirrored: counts[0]?.products ?? 0,
      collections_mirrored: counts[0]?.collections ?? 0,
      locations_mirrored: counts[0]?.locations ?? 0,
      markets_mirrored: counts[0]?.markets ?? 0,
      sync_job: presentJob(job),
    },
  };
}
