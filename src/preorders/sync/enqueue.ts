import { z } from "zod";
import type { Db } from "../../core/db.ts";
import { type JobHandle, declareJob, enqueueJob, jobHandle } from "../../core/jobs.ts";
import { declareTask, enqueue } from "../../core/tasks.ts";
import { enqueueShopConfigSync } from "../../storefront/enqueue.ts";
import { queueLimitCountersForOffer } from "../limits/enqueue.ts";

/**
 * What a committed change to an offer sets in motion, enqueued in the write's own transaction
 * (graphile-worker's `add_job` in SQL): no committed change misses its job, no rolled-back one
 * leaves one. Called by `touchOffer` (offers/model.ts). Imports nothing of the offer model,
 * so that the model can import it.
 */

/** graphile-worker task that syncs one offer to the platform (its run: src/preorders/sync/jobs/offer-sync.ts). */
export const offerSyncTask = declareTask({ name: "preorders_offer_sync", payload: z.object({ shop_id: z.uuid(), offer_id: z.uuid() }) });
/** Application job (jobs table, GET /jobs/{id}) that resolves an all or collection source into variants (its run: sync/jobs/resolve-variants.ts). */
export const offerResolveJob = declareJob({ name: "preorders_offer_resolve_variants", payload: z.object({ offer_id: z.uuid() }) });
/** Attempts of one sync before graphile-worker gives up (its backoff: e^attempt seconds). */
const OFFER_SYNC_MAX_ATTEMPTS = 10;

export const offerSyncKey = (offerId: string): string => `offer_sync:${offerId}`;

/**
 * Queues the offer's sync, coalesced per offer: the job key replaces a sync still waiting (a burst
 * of changes is one sync of the latest revision, which the job reads when it runs), and the
 * queue of the same name runs one sync of an offer at a time (a change made while a sync runs
 * queues the next one, which waits for it).
 */
export async function enqueueOfferSync(db: Db, shopId: string, offerId: string, delaySeconds = 0): Promise<void> {
  const key = offerSyncKey(offerId);
  await enqueue(db, offerSyncTask, { shop_id: shopId, offer_id: offerId }, {
    queueName: key,
    jobKey: key,
    delaySeconds,
    maxAttempts: OFFER_SYNC_MAX_ATTEMPTS,
    // A later sync never pushes back one already waiting (a resolution's end queues it at once,
    // and a sync deferred meanwhile must not postpone it by its delay).
    ...(delaySeconds > 0 ? { jobKeyMode: "preserve_run_at" as const } : {}),
  });
}

export interface SourceRow {
  products_source: string;
  products_collection_id: string | null;
  products_exclusion_tag: string | null;
  products_excluded_variant_ids: string[];
  deleted_at: Date | null;
}

/** The parameters a resolution depends on, as one comparable value; undefined for a custom source. */
export function sourceKey(row: SourceRow): string | undefined {
  if (row.deleted_at !== null || row.products_source === "custom") return undefined;
  return JSON.stringify([row.products_source, row.products_collection_id, row.products_exclusion_tag, [...row.products_excluded_variant_ids].sort()]);
}

/**
 * Queues the resolution of the offer's variants from the catalog mirror, or answers the one still
 * queued (it reads the offer when it starts, so it serves this change too). A running one does
 * not count: it may have read the offer before this change.
 */
export async function enqueueOfferResolution(db: Db, shopId: string, offerId: string, key: string): Promise<JobHandle> {
  // Waits for a resolution under way (resolve.ts locks the offer row first, for update): its commit
  // clears its job id, so only a resolution that has not read the offer yet is reused. Its job's
  // status cannot tell: a run shows `running` only after a while. Taken before the advisory lock,
  // as a writer that updated the offer already holds it; `no key update` leaves foreign-key checks
  // of rows referencing the offer (order lines, notifications) unblocked.
  await db.query("select 1 from preorder_offers where id = $1 for no key update", [offerId]);
  await db.query("select pg_advisory_xact_lock(hashtext('offer_resolve:' || $1))", [offerId]);
  const { rows } = await db.query<{ job_id: string | null }>(
    `select r.job_id from preorder_offer_resolutions r join jobs j on j.id = r.job_id
     where r.offer_id = $1 and j.status = 'queued'`,
    [offerId],
  );
  const queued = rows[0]?.job_id;
  const handle = queued ? jobHandle(queued) : await enqueueJob(db, offerResolveJob, { offer_id: offerId }, { shopId, maxAttempts: 5 });
  await db.query(
    `insert into preorder_offer_resolutions (offer_id, shop_id, source_key, job_id) values ($1, $2, $3, $4)
     on conflict (offer_id) do update set source_key = excluded.source_key, job_id = excluded.job_id, updated_at = now()`,
    [offerId, shopId, key, handle.job_id],
  );
  return handle;
}

/**
 * Everything a committed change to an offer enqueues: its sync, always; the limit counters it moves
 * (limits/enqueue.ts); the shop's storefront configuration (its live offer ids); and a resolution of its
 * variants when its source is all or collection and what the resolution depends on (source,
 * collection, exclusion tag, excluded ids) differs from what the last one was queued for.
 */
export async function enqueueOfferWork(db: Db, shopId: string, offerId: string): Promise<JobHandle | undefined> {
  const { rows } = await db.query<SourceRow & { resolved_key: string | null }>(
    `select o.products_source, o.products_collection_id, o.products_exclusion_tag, o.products_excluded_variant_ids, o.deleted_at,
            r.source_key as resolved_key
     from preorder_offers o left join preorder_offer_resolutions r on r.offer_id = o.id
     where o.shop_id = $1 and o.id = $2`,
    [shopId, offerId],
  );
  const row = rows[0];
  if (!row) return undefined;
  await enqueueOfferSync(db, shopId, offerId);
  // Its limits, status or deletion can move the counters the checkout's validation reads (decision 0211).
  await queueLimitCountersForOffer(db, shopId, offerId);
  // Its status or deletion moves the shop configuration's live_offer_ids, which the app embed
  // reads (decision 0232); coalesced per shop, and written only when its value changed.
  await enqueueShopConfigSync(db, shopId);
  const key = sourceKey(row);
  if (key !== undefined && key !== row.resolved_key) return enqueueOfferResolution(db, shopId, offerId, key);
  // A custom source forgets the last resolution: going back to `all` resolves again.
  if (key === undefined && row.resolved_key !== null) await db.query("delete from preorder_offer_resolutions where offer_id = $1", [offerId]);
  return undefined;
}

/**
 * Queues a resolution of the offer's variants now, whatever was queued before (set_source_to_all
 * asks for one each time: the catalog may have changed since): the handle of the queued job, or
 * undefined when the offer's source is custom.
 */
export async function requestOfferResolution(db: Db, shopId: string, offerId: string): Promise<JobHandle | undefined> {
  const { rows } = await db.query<SourceRow>(
    `select products_source, products_collection_id, products_exclusion_tag, products_excluded_variant_ids, deleted_at
     from preorder_offers where shop_id = $1 and id = $2`,
    [shopId, offerId],
  );
  const key = rows[0] ? sourceKey(rows[0]) : undefined;
  return key === undefined ? undefined : enqueueOfferResolution(db, shopId, offerId, key);
}
