import { z } from "zod";
import { assertCatalogMirrored } from "../../../../catalog/readiness.ts";
import { defineAction } from "../../../../core/action.ts";
import type { Db } from "../../../../core/db.ts";
import { notFound } from "../../../../core/errors.ts";
import { timestampOutput } from "../../../../core/outputs.ts";
import { platformId } from "../../../../core/params.ts";
import { OFFER_STATUSES, type OfferStatus, PRODUCT_SOURCES, type ProductSource } from "../../model.ts";

/**
 * Which offer applies to a variant: every live offer whose products take it (a custom list that
 * names it; a collection holding its product; all variants), its exclusions (the product's tag, the
 * excluded ids) applied, computed from the catalog mirror now, as the resolution does it.
 */

interface OfferCandidate {
  id: string;
  name: string;
  status: OfferStatus;
  source: ProductSource;
  collection_id: string | null;
  exclusion_tag: string | null;
  excluded: string[];
  created_at: Date;
}

interface VariantRow {
  id: string;
  legacy_id: string;
  title: string;
  product_id: string;
  product_title: string;
  tags: string[];
  collection_ids: string[];
}

const SOURCE_RANK: Record<ProductSource, number> = { custom: 0, collection: 1, all: 2 };

const matchOutput = z.strictObject({
  offer_id: z.uuid(),
  name: z.string(),
  status: z.enum(OFFER_STATUSES),
  source: z.enum(PRODUCT_SOURCES),
  reason: z.string().describe("why the offer's products take the variant"),
  in_variant_list: z.boolean().describe("whether the offer's variant list (GET /preorders/offers/{id}/variants) has it yet: an all or collection offer's list is what its last resolution found"),
  created_at: timestampOutput,
});

const resultOutput = z.strictObject({
  variant: z.strictObject({ id: z.int(), gid: z.string(), title: z.string(), product_id: z.string(), product_title: z.string() }),
  offer: matchOutput.nullable().describe("the offer that applies: the first active one in priority order; null when no active offer takes the variant"),
  reason: z.string().describe("why that offer applies, or why none does"),
  matches: z.array(matchOutput).describe("every live offer that takes the variant, in priority order (the applying one first), drafts and disabled ones included"),
});

const offerLookupOutput = z.strictObject({
  variant_id: z.string().nullable(),
  product_id: z.string().nullable(),
  results: z.array(resultOutput).describe("one per variant: the one asked, or every variant of the product in the mirror"),
});

function matchReason(offer: OfferCandidate, variant: VariantRow, listed: boolean): string | null {
  const excludedId = offer.excluded.includes(variant.id) || offer.excluded.includes(variant.legacy_id);
  const excludedTag = offer.exclusion_tag !== null && variant.tags.includes(offer.exclusion_tag);
  if (offer.source === "custom") return listed ? "the variant is on the offer's custom list" : null;
  if (excludedId || excludedTag) return null;
  const exclusions = offer.exclusion_tag === null ? "" : ` (its product is not tagged ${offer.exclusion_tag})`;
  if (offer.source === "collection") {
    return offer.collection_id !== null && variant.collection_ids.includes(offer.collection_id) ? `the variant's product is in the offer's collection ${offer.collection_id}${exclusions}` : null;
  }
  return `the offer applies to all variants and does not exclude this one${exclusions}`;
}

/** Priority: active offers first, then the more specific source (custom, collection, all), then the oldest. */
function byPriority(a: { status: OfferStatus; source: ProductSource; created_at: Date; offer_id: string }, b: typeof a): number {
  const active = Number(b.status === "active") - Number(a.status === "active");
  if (active !== 0) return active;
  const rank = SOURCE_RANK[a.source] - SOURCE_RANK[b.source];
  if (rank !== 0) return rank;
  return a.created_at.getTime() - b.created_at.getTime() || a.offer_id.localeCompare(b.offer_id);
}

async function lookup(db: Db, shopId: string, variants: VariantRow[]) {
  const { rows: offers } = await db.query<OfferCandidate>(
    `select id, name, status, products_source as source, products_collection_id as collection_id, products_exclusion_tag as exclusion_tag,
            products_excluded_variant_ids as excluded, created_at
     from preorder_offers where shop_id = $1 and deleted_at is null`,
    [shopId],
  );
  const { rows: listed } = await db.query<{ offer_id: string; variant_id: string }>(
    `select ov.offer_id, ov.variant_id from preorder_offer_variants ov join preorder_offers o on o.id = ov.offer_id
     where ov.shop_id = $1 and ov.variant_id = any($2::text[]) and o.deleted_at is null`,
    [shopId, variants.map((v) => v.id)],
  );
  const onList = new Set(listed.map((r) => `${r.offer_id} ${r.variant_id}`));
  return variants.map((variant) => {
    const matches = offers
      .map((offer) => {
        const inList = onList.has(`${offer.id} ${variant.id}`);
        const reason = matchReason(offer, variant, inList);
        return reason === null
          ? null
          : { offer_id: offer.id, name: offer.name, status: offer.status, source: offer.source, reason, in_variant_list: inList, created_at: offer.created_at };
      })
      .filter((m) => m !== null)
      .sort(byPriority);
    const first = matches[0];
    const applying = first?.status === "active" ? first : undefined;
    const reason = applying
      ? `${applying.reason}; ${matches.length > 1 ? `it comes first of ${String(matches.length)} matching offers (active first, then custom, collection, all, then the oldest)` : "it is the only matching offer"}`
      : matches.length === 0
        ? "no offer takes this variant"
        : "no active offer takes this variant (the matching ones are drafts or disabled)";
    const present = (m: (typeof matches)[number]) => ({ ...m, created_at: m.created_at.toISOString() });
    return {
      variant: { id: Number(variant.legacy_id), gid: variant.id, title: variant.title, product_id: variant.product_id, product_title: variant.product_title },
      offer: applying ? present(applying) : null,
      reason,
      matches: matches.map(present),
    };
  });
}

const VARIANT_SELECT = `select v.id, v.legacy_id::text, v.title, v.product_id, p.title as product_title, p.tags, p.collection_ids
  from variants v join products p on p.shop_id = v.shop_id and p.id = v.product_id`;

export const offerLookup = defineAction({
  name: "preorders.offer_lookup",
  method: "GET",
  path: "/preorders/offer_lookup",
  description:
    "Which preorder offer applies to a variant (variant_id) or to each variant of a product (product_id), from the catalog mirror: the applying offer with the reason, and every live offer that takes the variant in priority order. Answers { variant_id, product_id, results: [{ variant, offer, reason, matches }] }.",
  notes: [
    "Exactly one of variant_id and product_id (a number or a gid) is required.",
    "Priority: active offers first, then the more specific source (custom list, collection, all variants), then the oldest offer; the applying offer is the first one if it is active.",
    "All and collection offers are matched against the mirror now (the product's collections and tags, the excluded ids), so an offer whose resolution has not yet run already shows; in_variant_list says whether its variant list has the variant.",
    "404 when the variant or product is not in the catalog mirror.",
  ],
  aliases: ["which offer applies to a variant", "find the preorder offer for a product", "look up the offer of a variant"],
  kind: "read",
  input: z
    .strictObject({ variant_id: platformId("ProductVariant").optional(), product_id: platformId("Product").optional() })
    .superRefine((value, ctx) => {
      if (value.variant_id === undefined && value.product_id === undefined) {
        ctx.addIssue({ code: "custom", path: ["variant_id"], message: "is required unless product_id is given" });
      }
      if (value.variant_id !== undefined && value.product_id !== undefined) ctx.addIssue({ code: "custom", path: ["product_id"], message: "is not allowed with variant_id" });
    }),
  output: offerLookupOutput,
  async handler(ctx, { input }) {
    await assertCatalogMirrored(ctx.db, ctx.shopId);
    let variants: VariantRow[];
    if (input.variant_id !== undefined) {
      const { rows } = await ctx.db.query<VariantRow>(`${VARIANT_SELECT} where v.shop_id = $1 and v.id = $2`, [ctx.shopId, input.variant_id]);
      if (rows.length === 0) throw notFound("Product variant", input.variant_id);
      variants = rows;
    } else {
      const productId = input.product_id ?? "";
      const { rows } = await ctx.db.query<VariantRow>(`${VARIANT_SELECT} where v.shop_id = $1 and v.product_id = $2 order by v.legacy_id`, [ctx.shopId, productId]);
      if (rows.length === 0) throw notFound("Product", productId);
      variants = rows;
    }
    return { variant_id: input.variant_id ?? null, product_id: input.product_id ?? null, results: await lookup(ctx.db, ctx.shopId, variants) };
  },
});
