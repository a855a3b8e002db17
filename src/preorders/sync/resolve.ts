import type pg from "pg";
import { type Db, withTransaction } from "../../core/db.ts";
import { touchOffer } from "../offers/model.ts";
import { type SourceRow, enqueueOfferResolution, enqueueOfferSync, sourceKey } from "./enqueue.ts";

/**
 * Resolution of an `all` or `collection` source into the offer's variants (preorder_offer_variants),
 * set-based over the whole catalog mirror: one DELETE of the rows that no longer match, one
 * INSERT ... SELECT ... ON CONFLICT DO NOTHING of those that do. Runs as the job
 * `preorders_offer_resolve_variants` (enqueue.ts queues it), then marks the offer changed when its
 * variants changed, which queues its sync.
 */

/**
 * The variants of the shop's mirror an all ($2 null) or collection ($2) source takes: not on a
 * product tagged $3, not among the excluded ids $4 (global ids or the platform's numbers).
 */
const MATCHING = `
  from variants v
  join products p on p.shop_id = v.shop_id and p.id = v.product_id
  where v.shop_id = $1
    and ($2::text is null or p.collection_ids @> array[$2::text])
    and ($3::text is null or not p.tags @> array[$3::text])
    and not (v.id = any($4::text[]) or v.legacy_id::text = any($4::text[]))`;

/**
 * The INSERT ... SELECT of a resolution into `table` (preorder_offer_variants, or a copy of it:
 * the benchmark's baseline runs this very statement). Parameters: $1 shop, $2 collection or null,
 * $3 exclusion tag or null, $4 excluded ids, $5 offer.
 */
export function resolutionInsert(table = "preorder_offer_variants"): string {
  return `
  insert into ${table} (offer_id, shop_id, variant_id, legacy_id)
  select $5, $1, v.id, v.legacy_id ${MATCHING}
  on conflict (offer_id, variant_id) do nothing`;
}

const RESOLVE_INSERT = resolutionInsert();

/** The variants the source looks at ($1 shop, $2 collection or null), before its exclusions: the job's total. */
const CONSIDERED = `
  select count(*)::int as n
  from variants v
  join products p on p.shop_id = v.shop_id and p.id = v.product_id
  where v.shop_id = $1 and ($2::text is null or p.collection_ids @> array[$2::text])`;

const RESOLVE_DELETE = `
  delete from preorder_offer_variants o
  where o.offer_id = $5 and not exists (select 1 ${MATCHING} and v.id = o.variant_id)`;

/** Records the resolution done; this job stops counting as under way (a newer one queued meanwhile still does). */
async function finishResolution(db: Db, offerId: string, jobId: string | undefined, variants: number | null): Promise<void> {
  await db.query(
    `update preorder_offer_resolutions set resolved_at = now(), variants = coalesce($2, variants), updated_at = now(),
       job_id = case when job_id = $3::uuid then null else job_id end
     where offer_id = $1`,
    [offerId, variants, jobId ?? null],
  );
}

interface ResolveRow extends SourceRow {
  id: string;
  shop_id: string;
  sync_status: string;
}

export interface ResolutionResult {
  offer_id: string;
  source: string;
  /** The catalog variants the source looked at (exclusions included): each was resolved in or out. */
  considered: number;
  added: number;
  removed: number;
  /** The offer's variants now. */
  variants: number;
  skipped?: string;
}

/** Told how many variants the resolution considers, before it resolves them. */
type OnConsidered = (considered: number) => Promise<void>;

/**
 * Resolves one offer's variants in the caller's transaction (the offer row locked). `jobId`, the
 * job doing it, stops counting as under way when this commits (a sync waiting for it then runs).
 */
export async function resolveOfferVariants(db: Db, shopId: string, offerId: string, jobId?: string, onConsidered?: OnConsidered): Promise<ResolutionResult> {
  const { rows } = await db.query<ResolveRow>(
    `select id, shop_id, products_source, products_collection_id, products_exclusion_tag, products_excluded_variant_ids, deleted_at, sync_status
     from preorder_offers where shop_id = $1 and id = $2 for update`,
    [shopId, offerId],
  );
  const offer = rows[0];
  const none = { offer_id: offerId, source: offer?.products_source ?? "unknown", considered: 0, added: 0, removed: 0, variants: 0 };
  if (!offer) return { ...none, skipped: "the offer does not exist" };
  // Deleted, or back to a custom source (the merchant's own list) after this job was queued.
  const skipped = offer.deleted_at !== null ? "the offer is deleted" : sourceKey(offer) === undefined ? "the offer's source is custom" : undefined;
  if (skipped) {
    await finishResolution(db, offerId, jobId, null);
    if (offer.sync_status !== "synced") await enqueueOfferSync(db, shopId, offerId);
    return { ...none, skipped };
  }
  const params = [shopId, offer.products_source === "collection" ? offer.products_collection_id : null, offer.products_exclusion_tag, offer.products_excluded_variant_ids, offerId];
  const { rows: scope } = await db.query<{ n: number }>(CONSIDERED, params.slice(0, 2));
  const considered = scope[0]?.n ?? 0;
  await onConsidered?.(considered);
  const removed = (await db.query(RESOLVE_DELETE, params)).rowCount ?? 0;
  const added = (await db.query(RESOLVE_INSERT, params)).rowCount ?? 0;
  const { rows: counted } = await db.query<{ n: number }>("select count(*)::int as n from preorder_offer_variants where offer_id = $1", [offerId]);
  const variants = counted[0]?.n ?? 0;
  await finishResolution(db, offerId, jobId, variants);
  if (added > 0 || removed > 0) await touchOffer(db, shopId, offerId);
  // A sync that waited for this resolution (see run.ts) runs now even if nothing changed.
  else if (offer.sync_status !== "synced") await enqueueOfferSync(db, shopId, offerId);
  return { offer_id: offerId, source: offer.products_source, considered, added, removed, variants };
}

/**
 * After a catalog sync: every all or collection offer of the shop whose
 * `inventory.continue_selling.auto_apply_to_new_variants` is on gets a resolution, which adds the
 * variants the sync brought (and drops those it removed). Offers without it keep the variants
 * resolved when their source was set. Answers how many offers were queued.
 */
export async function enqueueAutoApplyResolutions(pool: pg.Pool, shopId: string): Promise<number> {
  const { rows } = await pool.query<{ id: string }>(
    `select id from preorder_offers
     where shop_id = $1 and deleted_at is null and products_source <> 'custom'
       and coalesce((settings #>> '{inventory,continue_selling,auto_apply_to_new_variants}')::boolean, false)
     order by created_at`,
    [shopId],
  );
  // One transaction per offer: each holds one offer's lock (enqueueOfferResolution), never a
  // shop's worth of them, so it cannot deadlock with a writer locking offers in another order.
  let queued = 0;
  for (const { id } of rows) {
    const key = await withTransaction(pool, async (db) => {
      const { rows: offers } = await db.query<SourceRow>(
        `select products_source, products_collection_id, products_exclusion_tag, products_excluded_variant_ids, deleted_at
         from preorder_offers where shop_id = $1 and id = $2 for no key update`,
        [shopId, id],
      );
      const offer = offers[0];
      const sourceOf = offer ? sourceKey(offer) : undefined;
      if (sourceOf !== undefined) await enqueueOfferResolution(db, shopId, id, sourceOf);
      return sourceOf;
    });
    if (key !== undefined) queued += 1;
  }
  return queued;
}
