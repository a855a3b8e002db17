import { z } from "zod";
import { type JobRunContext, defineJob } from "../../../core/job-task.ts";
import { declareJob } from "../../../core/jobs.ts";
import { METAFIELDS_PER_CALL, deleteMetafields } from "../../../platform/operations/metafields.ts";
import { chunk } from "../../../platform/operations/chunk.ts";
import { forceShopConfigSync } from "../../../storefront/enqueue.ts";
import { enqueueOfferSync } from "../enqueue.ts";
import { STOREFRONT_NAMESPACE, storefrontKey } from "../metafields.ts";

/**
 * The merchant's repairs of the storefront metafields (decision 0196). Both end by queueing the
 * offers' syncs, which do the writing as every change's sync does (one sync per offer at a time,
 * through the shared client and its throttle, failures on the offer's `sync`):
 * - bulk sync: forgets what was written for the offers, so their next sync writes every variant
 *   again (a metafield changed or deleted on the platform behind the service's back comes back);
 * - reset: deletes the app's storefront metafields on the given variants now, forgets them, and
 *   queues the syncs of every offer that had one there or holds the variant, which write them
 *   afresh for the live ones.
 */

export const bulkSyncMetafieldsJob = declareJob({
  name: "preorders_metafields_bulk_sync",
  payload: z.object({ offer_ids: z.array(z.string()).optional() }),
});

export const resetMetafieldsJob = declareJob({
  name: "preorders_metafields_reset",
  payload: z.object({ variant_ids: z.array(z.string()) }),
});

async function runBulkSync(ctx: JobRunContext<{ offer_ids?: string[] | undefined }>): Promise<Record<string, unknown>> {
  const { pool, shopId, payload } = ctx;
  // Live offers, and deleted ones that still have metafields recorded (a cleanup that failed).
  const { rows } = await pool.query<{ id: string }>(
    `select o.id from preorder_offers o
     where o.shop_id = $1 and ($2::uuid[] is null or o.id = any($2::uuid[]))
       and (o.deleted_at is null or exists (select 1 from preorder_offer_metafields m where m.offer_id = o.id))
     order by o.created_at, o.id`,
    [shopId, payload.offer_ids ?? null],
  );
  await ctx.progress(0, rows.length);
  let processed = 0;
  for (const { id } of rows) {
    await pool.query("update preorder_offer_metafields set digest = '' where offer_id = $1", [id]);
    await enqueueOfferSync(pool, shopId, id);
    await ctx.progress(++processed, rows.length);
  }
  // The shop-wide configuration metafield (decision 0203) is written again too, whatever offers were named.
  await forceShopConfigSync(pool, shopId);
  return { offers_queued: rows.length, shop_config_queued: true };
}

async function runReset(ctx: JobRunContext<{ variant_ids: string[] }>): Promise<Record<string, unknown>> {
  const { pool, shopId, payload } = ctx;
  const { rows } = await pool.query<{ offer_id: string; owner_id: string }>(
    "select offer_id, owner_id from preorder_offer_metafields where shop_id = $1 and owner_id = any($2::text[]) order by owner_id, offer_id",
    [shopId, payload.variant_ids],
  );
  const total = rows.length;
  await ctx.progress(0, total);
  const client = await ctx.platform.clientFor(pool, shopId);
  const options = ctx.signal ? { signal: ctx.signal } : {};
  let processed = 0;
  for (const part of chunk(rows, METAFIELDS_PER_CALL)) {
    await deleteMetafields(
      client,
      part.map((r) => ({ ownerId: r.owner_id, namespace: STOREFRONT_NAMESPACE, key: storefrontKey(r.offer_id) })),
      options,
    );
    await pool.query(
      `delete from preorder_offer_metafields m using unnest($1::uuid[], $2::text[]) as d(offer_id, owner_id)
       where m.offer_id = d.offer_id and m.owner_id = d.owner_id`,
      [part.map((r) => r.offer_id), part.map((r) => r.owner_id)],
    );
    processed += part.length;
    await ctx.progress(processed, total);
  }
  const { rows: offers } = await pool.query<{ id: string }>(
    `select distinct o.id from preorder_offers o
     where o.shop_id = $1 and (o.id = any($2::uuid[])
       or (o.deleted_at is null and exists (select 1 from preorder_offer_variants v where v.offer_id = o.id and v.variant_id = any($3::text[]))))`,
    [shopId, [...new Set(rows.map((r) => r.offer_id))], payload.variant_ids],
  );
  for (const { id } of offers) await enqueueOfferSync(pool, shopId, id);
  return { metafields_deleted: total, offers_queued: offers.length };
}

export const bulkSyncMetafieldsJobRun = defineJob({ ...bulkSyncMetafieldsJob, run: runBulkSync });
export const resetMetafieldsJobRun = defineJob({ ...resetMetafieldsJob, run: runReset });
