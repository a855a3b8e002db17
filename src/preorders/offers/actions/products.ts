import { z } from "zod";
import { type ActionContext, type AnyAction, defineAction } from "../../../core/action.ts";
import type { Db } from "../../../core/db.ts";
import { platformId } from "../../../core/params.ts";
import { assertCatalogMirrored } from "../../../catalog/readiness.ts";
import { type Issue, conflict, invalidField, unprocessable } from "../../../core/errors.ts";
import { requestOfferResolution } from "../../sync/enqueue.ts";
import { LIMITS, type OfferRow, type ProductSource, findOffer, flushOfferWork, groupPath, offerParams, requiredLabel, touchOffer } from "../model.ts";
import { productsOutput, productsWithJobOutput, productsWithResolutionOutput } from "../outputs.ts";
import type { JobHandle } from "../../../core/jobs.ts";

/**
 * Which variants an offer applies to. The source and its parameters are columns of the offer;
 * the variants themselves are rows of preorder_offer_variants: chosen one by one (custom), or
 * resolved from the catalog mirror (all, collection) by the resolution job.
 *
 * Until a connected shop's first full catalog sync completes, the mirror holds part of the
 * catalog: a change that queues a resolution over it, and an id it does not know, answer 409
 * `catalog sync in progress` (src/catalog/readiness.ts) rather than resolve a part or call the id unknown.
 */

const VARIANT_SAMPLE_SIZE = 10;

/** The GET shape of the products group (outputs.ts). */
type Products = z.output<typeof productsOutput>;

export interface VariantStats {
  count: number;
  sample: number[];
}

/** Variant count and a sample of numeric variant ids, per offer, in one statement. */
export async function variantStats(db: Db, offerIds: readonly string[]): Promise<Map<string, VariantStats>> {
  const stats = new Map<string, VariantStats>();
  if (offerIds.length === 0) return stats;
  const { rows } = await db.query<{ id: string; count: number; sample: string[] }>(
    `select o.id,
            (select count(*) from preorder_offer_variants v where v.offer_id = o.id)::int as count,
            array(select v.legacy_id::text from preorder_offer_variants v where v.offer_id = o.id
                  order by v.legacy_id limit ${VARIANT_SAMPLE_SIZE}) as sample
     from unnest($1::uuid[]) as o(id)`,
    [offerIds],
  );
  for (const row of rows) stats.set(row.id, { count: row.count, sample: row.sample.map(Number) });
  return stats;
}

export function presentProducts(row: OfferRow, stats: VariantStats | undefined): Products {
  return {
    source: row.products_source,
    custom: { variant_ids_sample: stats?.sample ?? [] },
    collection: { id: row.products_collection_id },
    exclusion_tag: row.products_exclusion_tag,
    excluded_variant_ids: row.products_excluded_variant_ids,
  };
}

/** A variant as every area names it: the platform's numeric id (integer or digits) or its gid; the gid afterwards. */
export const variantRefs = z.array(platformId("ProductVariant")).max(LIMITS.variantIds);
const exclusionTag = requiredLabel.nullable();

export interface ResolvedVariant {
  id: string;
  legacy_id: string;
}

/**
 * The shop's mirrored variants for the given references, in order, without duplicates; 422 naming
 * each reference that is not a variant of this shop (`<field>.<index> must be a variant of this shop`),
 * or 409 while the shop's first catalog sync has not completed (the id may just not be mirrored yet).
 */
export async function resolveVariants(db: Db, shopId: string, refs: readonly string[], field: string): Promise<ResolvedVariant[]> {
  if (refs.length === 0) return [];
  const { rows } = await db.query<ResolvedVariant>("select id, legacy_id::text from variants where shop_id = $1 and id = any($2::text[])", [shopId, refs]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const found: ResolvedVariant[] = [];
  const seen = new Set<string>();
  const violations: Issue[] = [];
  refs.forEach((ref, index) => {
    const variant = byId.get(ref);
    if (!variant) violations.push({ path: `${field}.${index}`, message: `must be a variant of this shop (unknown id ${ref})` });
    else if (!seen.has(variant.id)) {
      seen.add(variant.id);
      found.push(variant);
    }
  });
  if (violations.length > 0) {
    await assertCatalogMirrored(db, shopId);
    throw unprocessable(violations);
  }
  return found;
}

export async function collectionExists(db: Db, shopId: string, collectionId: string): Promise<boolean> {
  const { rowCount } = await db.query("select 1 from collections where shop_id = $1 and id = $2", [shopId, collectionId]);
  return (rowCount ?? 0) > 0;
}

/** Adds variants to an offer; the number actually added. */
export async function addOfferVariants(db: Db, shopId: string, offerId: string, variants: readonly ResolvedVariant[]): Promise<number> {
  if (variants.length === 0) return 0;
  const { rowCount } = await db.query(
    `insert into preorder_offer_variants (offer_id, shop_id, variant_id, legacy_id)
     select $1, $2, v.id, v.legacy_id from unnest($3::text[], $4::bigint[]) as v(id, legacy_id)
     on conflict (offer_id, variant_id) do nothing`,
    [offerId, shopId, variants.map((v) => v.id), variants.map((v) => v.legacy_id)],
  );
  return rowCount ?? 0;
}

interface SourceChange {
  source: ProductSource;
  collection_id: string | null;
  exclusion_tag: string | null;
  excluded_variant_ids: string[];
}

async function writeSource(db: Db, row: OfferRow, change: SourceChange): Promise<OfferRow> {
  const { rows } = await db.query<OfferRow>(
    `update preorder_offers
     set products_source = $3, products_collection_id = $4, products_exclusion_tag = $5, products_excluded_variant_ids = $6
     where shop_id = $1 and id = $2
     returning products_source, products_collection_id, products_exclusion_tag, products_excluded_variant_ids`,
    [row.shop_id, row.id, change.source, change.collection_id, change.exclusion_tag, change.excluded_variant_ids],
  );
  return { ...row, ...rows[0] };
}

function sameSource(row: OfferRow, change: SourceChange): boolean {
  return (
    row.products_source === change.source &&
    row.products_collection_id === change.collection_id &&
    row.products_exclusion_tag === change.exclusion_tag &&
    row.products_excluded_variant_ids.join("\n") === change.excluded_variant_ids.join("\n")
  );
}

async function answer(ctx: ActionContext, row: OfferRow): Promise<Products> {
  return presentProducts(row, (await variantStats(ctx.db, [row.id])).get(row.id));
}

function sourceOf(row: OfferRow): SourceChange {
  return {
    source: row.products_source,
    collection_id: row.products_collection_id,
    exclusion_tag: row.products_exclusion_tag,
    excluded_variant_ids: row.products_excluded_variant_ids,
  };
}

/** Writes a source change (when it is one) and marks the offer changed. */
async function changeSource(ctx: ActionContext, row: OfferRow, change: SourceChange, variantsChanged = false): Promise<Products> {
  return (await changeSourceQueued(ctx, row, change, variantsChanged)).products;
}

/** changeSource, queuing the offer's work now: the products and the handle of the resolution it queued (null: none). */
async function changeSourceQueued(
  ctx: ActionContext,
  row: OfferRow,
  change: SourceChange,
  variantsChanged = false,
): Promise<{ products: Products; resolution_job: JobHandle | null }> {
  let current = row;
  if (!sameSource(row, change)) current = await writeSource(ctx.db, row, change);
  if (current !== row || variantsChanged) await touchOffer(ctx.db, ctx.shopId, row.id);
  const resolution = await flushOfferWork(ctx.db, row.id);
  return { products: await answer(ctx, current), resolution_job: resolution ?? null };
}

async function answerWithResolution(queued: Promise<{ products: Products; resolution_job: JobHandle | null }>): Promise<Record<string, unknown>> {
  const { products, resolution_job } = await queued;
  return { ...products, resolution_job };
}

const dedupe = (ids: readonly string[]): string[] => [...new Set(ids)];

function requireSource(row: OfferRow, source: ProductSource, action: string): void {
  if (row.products_source !== source) {
    throw conflict(`products/${action} refused: the offer's products source is ${row.products_source}, not ${source}`);
  }
}

const PRODUCTS_SHAPE =
  "source (all, custom or collection), custom.variant_ids_sample (up to 10 numeric variant ids of the offer), collection.id, exclusion_tag and excluded_variant_ids (for all and collection sources)";

export const PRODUCTS_ACTIONS: readonly AnyAction[] = [
  defineAction({
    name: "preorders.offers.products.get",
    method: "GET",
    path: groupPath("products"),
    description: `The variants the offer applies to: ${PRODUCTS_SHAPE}. The full list is GET /preorders/offers/{id}/variants.`,
    aliases: ["show which products a preorder offer applies to", "read the preorder offer product source"],
    output: productsOutput,
    kind: "read",
    params: offerParams,
    input: z.strictObject({}),
    async handler(ctx, { params }) {
      return answer(ctx, await findOffer(ctx.db, ctx.shopId, params.id));
    },
  }),
  defineAction({
    name: "preorders.offers.products.update",
    method: "PATCH",
    path: groupPath("products"),
    description:
      "Changes what an all or collection source leaves out: exclusion_tag (products with this tag are excluded; null for none) and excluded_variant_ids (replaced whole, at most 1000). The source itself changes with set_source_to_all, set_source_to_custom and set_source_to_collection. Answers the products group with resolution_job: the handle of the job resolving the variants again when the change queued one (an all or collection source), else null.",
    aliases: ["exclude products from a preorder offer", "set the preorder exclusion tag"],
    notes: ["Only what an all or collection source leaves out changes here; the source changes by set_source_to_all, set_source_to_custom and set_source_to_collection."],
    output: productsWithResolutionOutput,
    kind: "write",
    params: offerParams,
    input: z.strictObject({ exclusion_tag: exclusionTag.optional(), excluded_variant_ids: variantRefs.optional() }),
    async handler(ctx, { params, input }) {
      const row = await findOffer(ctx.db, ctx.shopId, params.id, true);
      if (row.products_source !== "custom") await assertCatalogMirrored(ctx.db, ctx.shopId);
      return answerWithResolution(
        changeSourceQueued(ctx, row, {
          ...sourceOf(row),
          ...(input.exclusion_tag !== undefined ? { exclusion_tag: input.exclusion_tag } : {}),
          ...(input.excluded_variant_ids !== undefined ? { excluded_variant_ids: dedupe(input.excluded_variant_ids) } : {}),
        }),
      );
    },
  }),
  defineAction({
    name: "preorders.offers.products.set_source_to_all",
    method: "POST",
    path: groupPath("products", "set_source_to_all"),
    description:
      "Applies the offer to every variant of the catalog: confirm must be true (422 otherwise); exclusion_tag (products carrying it are left out) and excluded_variant_ids (array of string) are stored as given (absent: none). The variants are resolved over the whole catalog mirror by a job, every time (its total: the catalog variants considered; processed: those resolved, in or out; its result: considered, added, removed and the offer's variants). Answers the products group with that job's handle (job_id, status_url).",
    aliases: ["apply a preorder offer to all products", "put the whole catalog on preorder"],
    notes: [
      "confirm must be true: the offer then applies to every variant of the catalog.",
      "The variants are resolved by a job over the whole catalog every time; poll its status_url.",
      "Refused (409) until the shop's first catalog sync has completed.",
    ],
    output: productsWithJobOutput,
    kind: "write",
    async: true,
    params: offerParams,
    input: z.strictObject({
      confirm: z.boolean().refine((v) => v, "must be true"),
      exclusion_tag: exclusionTag.optional(),
      excluded_variant_ids: variantRefs.optional(),
    }),
    async handler(ctx, { params, input }) {
      const row = await findOffer(ctx.db, ctx.shopId, params.id, true);
      await assertCatalogMirrored(ctx.db, ctx.shopId);
      const products = await changeSource(ctx, row, {
        source: "all",
        collection_id: null,
        exclusion_tag: input.exclusion_tag ?? null,
        excluded_variant_ids: dedupe(input.excluded_variant_ids ?? []),
      });
      return { ...products, ...(await requestOfferResolution(ctx.db, ctx.shopId, row.id)) };
    },
  }),
  defineAction({
    name: "preorders.offers.products.set_source_to_custom",
    method: "POST",
    path: groupPath("products", "set_source_to_custom"),
    description:
      "Applies the offer to the variants listed, replacing its variants: variant_ids (numeric platform ids or global ids, at most 1000; each must be a variant of the shop; [] for none). Then add_variants and remove_variants edit the list. Answers the products group.",
    aliases: ["apply a preorder offer to chosen variants", "replace the variants of a preorder offer"],
    notes: ["Replaces the offer's variants; [] leaves it with none."],
    output: productsOutput,
    kind: "write",
    params: offerParams,
    input: z.strictObject({ variant_ids: variantRefs }),
    async handler(ctx, { params, input }) {
      const row = await findOffer(ctx.db, ctx.shopId, params.id, true);
      const variants = await resolveVariants(ctx.db, ctx.shopId, input.variant_ids, "variant_ids");
      const { rows: before } = await ctx.db.query<{ variant_id: string }>(
        "select variant_id from preorder_offer_variants where offer_id = $1 order by variant_id",
        [row.id],
      );
      const wanted = variants.map((v) => v.id).sort();
      const same = row.products_source === "custom" && before.map((r) => r.variant_id).join("\n") === wanted.join("\n");
      if (!same) {
        await ctx.db.query("delete from preorder_offer_variants where offer_id = $1", [row.id]);
        await addOfferVariants(ctx.db, ctx.shopId, row.id, variants);
      }
      return changeSource(ctx, row, { ...sourceOf(row), source: "custom", collection_id: null }, !same);
    },
  }),
  defineAction({
    name: "preorders.offers.products.add_variants",
    method: "POST",
    path: groupPath("products", "add_variants"),
    description:
      "Adds variants to a custom offer: variant_ids (numeric platform ids or global ids, 1 to 1000; each must be a variant of the shop; ones already in the offer are ignored). 409 when the offer's source is not custom. Answers the products group.",
    aliases: ["add variants to a preorder offer", "put more variants on preorder"],
    notes: ["Refused (409) unless the offer's products source is custom."],
    output: productsOutput,
    kind: "write",
    params: offerParams,
    input: z.strictObject({ variant_ids: variantRefs.min(1) }),
    async handler(ctx, { params, input }) {
      const row = await findOffer(ctx.db, ctx.shopId, params.id, true);
      requireSource(row, "custom", "add_variants");
      const variants = await resolveVariants(ctx.db, ctx.shopId, input.variant_ids, "variant_ids");
      const added = await addOfferVariants(ctx.db, ctx.shopId, row.id, variants);
      return changeSource(ctx, row, sourceOf(row), added > 0);
    },
  }),
  defineAction({
    name: "preorders.offers.products.remove_variants",
    method: "POST",
    path: groupPath("products", "remove_variants"),
    description:
      "Removes variants from a custom offer: variant_ids (numeric platform ids or global ids, 1 to 1000; ones not in the offer are ignored). 409 when the offer's source is not custom. Answers the products group.",
    aliases: ["remove variants from a preorder offer", "take variants off preorder"],
    notes: ["Refused (409) unless the offer's products source is custom."],
    output: productsOutput,
    kind: "write",
    params: offerParams,
    input: z.strictObject({ variant_ids: variantRefs.min(1) }),
    async handler(ctx, { params, input }) {
      const row = await findOffer(ctx.db, ctx.shopId, params.id, true);
      requireSource(row, "custom", "remove_variants");
      const ids = input.variant_ids.map(String);
      const { rowCount } = await ctx.db.query(
        `delete from preorder_offer_variants
         where offer_id = $1 and (variant_id = any($2::text[]) or legacy_id::text = any($2::text[]))`,
        [row.id, ids],
      );
      return changeSource(ctx, row, sourceOf(row), (rowCount ?? 0) > 0);
    },
  }),
  defineAction({
    name: "preorders.offers.products.set_source_to_collection",
    method: "POST",
    path: groupPath("products", "set_source_to_collection"),
    description:
      "Applies the offer to the variants of a collection: collection_id (a collection of the shop); exclusion_tag and excluded_variant_ids as for set_source_to_all (absent: none). The variants are resolved by a job. Answers the products group with resolution_job, that job's handle (job_id, status_url).",
    aliases: ["apply a preorder offer to a collection", "put a collection on preorder"],
    notes: ["The variants are resolved by a background job: poll resolution_job.status_url.", "Refused (409) until the shop's first catalog sync has completed."],
    output: productsWithResolutionOutput,
    kind: "write",
    params: offerParams,
    input: z.strictObject({ collection_id: z.string().min(1).max(255), exclusion_tag: exclusionTag.optional(), excluded_variant_ids: variantRefs.optional() }),
    async handler(ctx, { params, input }) {
      const row = await findOffer(ctx.db, ctx.shopId, params.id, true);
      await assertCatalogMirrored(ctx.db, ctx.shopId);
      if (!(await collectionExists(ctx.db, ctx.shopId, input.collection_id))) {
        throw invalidField("collection_id", "must be a collection of this shop");
      }
      return answerWithResolution(
        changeSourceQueued(ctx, row, {
          source: "collection",
          collection_id: input.collection_id,
          exclusion_tag: input.exclusion_tag ?? null,
          excluded_variant_ids: dedupe(input.excluded_variant_ids ?? []),
        }),
      );
    },
  }),
  defineAction({
    name: "preorders.offers.products.set_collection",
    method: "POST",
    path: groupPath("products", "set_collection"),
    description:
      "Changes the collection of a collection offer: collection_id (a collection of the shop). 409 when the offer is not a collection offer (use set_source_to_collection). Answers the products group with resolution_job: the handle of the job resolving the new collection's variants (null when the collection did not change).",
    aliases: ["change the collection of a preorder offer", "switch a preorder offer to another collection"],
    notes: ["Refused (409) when the offer is not a collection offer: use set_source_to_collection."],
    output: productsWithResolutionOutput,
    kind: "write",
    params: offerParams,
    input: z.strictObject({ collection_id: z.string().min(1).max(255) }),
    async handler(ctx, { params, input }) {
      const row = await findOffer(ctx.db, ctx.shopId, params.id, true);
      requireSource(row, "collection", "set_collection");
      await assertCatalogMirrored(ctx.db, ctx.shopId);
      if (!(await collectionExists(ctx.db, ctx.shopId, input.collection_id))) {
        throw invalidField("collection_id", "must be a collection of this shop");
      }
      return answerWithResolution(changeSourceQueued(ctx, row, { ...sourceOf(row), collection_id: input.collection_id }));
    },
  }),
];
