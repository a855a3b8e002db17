import { z } from "zod";
import { pageOutput, timestampOutput } from "../../../core/outputs.ts";
import { defineAction } from "../../../core/action.ts";
import { PAGING_RULE, pageAnswer, pageOrCursor, paging, pagingParams, cursorPart } from "../../../core/paging.ts";
import { OFFERS_PATH, findOffer, offerParams } from "../model.ts";

interface VariantListRow {
  legacy_id: string;
  variant_id: string;
  added_at: Date;
  title: string | null;
  sku: string | null;
  product_id: string | null;
  product_title: string | null;
  inventory_policy: string | null;
  available: number | null;
  override_shipping_text: string | null;
  override_max_count: number | null;
}

const offerVariantItem = z.strictObject({
  id: z.int().describe("the platform's numeric id"),
  gid: z.string(),
  title: z.string().nullable(),
  sku: z.string().nullable(),
  product_id: z.string().nullable(),
  product_title: z.string().nullable(),
  inventory_policy: z.string().nullable(),
  inventory_available: z.int().nullable().describe("sum over active locations, from the catalog mirror; null once the platform deleted the variant"),
  in_catalog: z.boolean(),
  added_at: timestampOutput,
  overrides: z
    .strictObject({ shipping_text: z.string().nullable(), max_count: z.int().nullable() })
    .describe("this variant's own shipping text and max count (set_shipping_text, set_max_count); null for each: the offer's"),
});

/** GET /preorders/offers/{id}/variants: what `variants.url` of the offer points to. */
export const listOfferVariants = defineAction({
  name: "preorders.offers.variants.list",
  method: "GET",
  path: `${OFFERS_PATH}/{id}/variants`,
  description: `The variants the offer applies to (the list its variants.url points to), by numeric id. Answers { variants: [{ id (the platform's numeric id), gid, title, sku, product_id, product_title, inventory_policy, inventory_available (sum over active locations, from the catalog mirror), in_catalog (false once the platform has deleted it), added_at, overrides: { shipping_text, max_count } (the variant's own, null: the offer's) }], page, per_page, total, next_cursor }. ${PAGING_RULE}. For an all or collection source the list is what the last resolution found.`,
  aliases: ["list the variants of a preorder offer", "which variants are in this offer"],
  notes: ["For an all or collection source the list is what the last resolution found; GET /preorders/offer_lookup matches against the mirror now."],
  output: pageOutput("variants", offerVariantItem),
  kind: "read",
  params: offerParams,
  input: z.strictObject(pagingParams(z.tuple([cursorPart.bigint, cursorPart.text]))).superRefine(pageOrCursor),
  async handler(ctx, { params, input }) {
    const offer = await findOffer(ctx.db, ctx.shopId, params.id);
    const p = paging(input);
    const { rows: counted } = await ctx.db.query<{ n: number }>("select count(*)::int as n from preorder_offer_variants where offer_id = $1", [offer.id]);
    const { rows } = await ctx.db.query<VariantListRow>(
      `with page as (
         select o.variant_id, o.legacy_id, o.added_at
         from preorder_offer_variants o
         where o.offer_id = $1 and ($5::bigint is null or (o.legacy_id, o.variant_id) > ($5::bigint, $6::text))
         order by o.legacy_id, o.variant_id
         limit $3 offset $4
       )
       select page.legacy_id::text, page.variant_id, page.added_at,
              ov.shipping_text as override_shipping_text, ov.max_count as override_max_count,
              v.title, v.sku, v.product_id, p.title as product_title, v.inventory_policy,
              case when v.id is null then null else
                (select coalesce(sum(l.available), 0)::int
                 from inventory_levels l
                 left join locations loc on loc.shop_id = l.shop_id and loc.id = l.location_id
                 where l.shop_id = $2 and l.inventory_item_id = v.inventory_item_id and coalesce(loc.active, true))
              end as available
       from page
       left join variants v on v.shop_id = $2 and v.id = page.variant_id
       left join products p on p.shop_id = $2 and p.id = v.product_id
       left join preorder_offer_variant_overrides ov on ov.offer_id = $1 and ov.variant_id = page.variant_id
       order by page.legacy_id, page.variant_id`,
      [offer.id, ctx.shopId, p.limit, p.offset, p.after?.[0] ?? null, p.after?.[1] ?? null],
    );
    return pageAnswer("variants", p, rows, counted[0]?.n ?? 0, (r) => [r.legacy_id, r.variant_id], (r) => ({
      id: Number(r.legacy_id),
      gid: r.variant_id,
      title: r.title,
      sku: r.sku,
      product_id: r.product_id,
      product_title: r.product_title,
      inventory_policy: r.inventory_policy,
      inventory_available: r.available,
      in_catalog: r.title !== null,
      added_at: r.added_at.toISOString(),
      overrides: { shipping_text: r.override_shipping_text, max_count: r.override_max_count },
    }));
  },
});
