import { z } from "zod";
import { assertCatalogMirrored } from "../../../catalog/readiness.ts";
import { type ActionContext, defineAction } from "../../../core/action.ts";
import { notFound } from "../../../core/errors.ts";
import { pageOutput, timestampOutput } from "../../../core/outputs.ts";
import { PAGING_RULE, cursorPart, pageAnswer, pageOrCursor, paging, pagingParams } from "../../../core/paging.ts";
import { platformGid, platformId } from "../../../core/params.ts";
import { queryBoolean } from "../../../core/schemas.ts";
import { preorderCountsForVariants, refreshVariantCounts } from "../../orders/counts.ts";
import { OFFER_STATUSES, PRODUCT_SOURCES } from "../../offers/model.ts";
import { offerId } from "../../params.ts";

/**
 * The shop's product variants as the catalog mirror has them, with their preorder facts:
 * preorder_count (units on live preorder lines, as last counted: order ingestion and the
 * recalculations keep it), the inventory and the offers that list them.
 */

const VARIANT_RESOURCE = "Product variant";
const PATH = "/preorders/product_variants";

interface VariantRow {
  id: string;
  legacy_id: string;
  title: string;
  sku: string | null;
  price: string;
  product_id: string;
  product_title: string | null;
  inventory_policy: string;
  inventory_item_id: string;
  available: number;
  preorder_count: number;
  preorder_count_updated_at: Date | null;
  offer_count: number;
}

const SELECT = `
  select v.id, v.legacy_id::text, v.title, v.sku, v.price::text as price, v.product_id, p.title as product_title, v.inventory_policy, v.inventory_item_id,
    (select coalesce(sum(l.available), 0)::int from inventory_levels l
       left join locations loc on loc.shop_id = l.shop_id and loc.id = l.location_id
       where l.shop_id = v.shop_id and l.inventory_item_id = v.inventory_item_id and coalesce(loc.active, true)) as available,
    coalesce(c.preorder_count, 0) as preorder_count, c.updated_at as preorder_count_updated_at,
    (select count(*)::int from preorder_offer_variants ov join preorder_offers o on o.id = ov.offer_id
       where ov.shop_id = v.shop_id and ov.variant_id = v.id and o.deleted_at is null) as offer_count
  from variants v
  left join products p on p.shop_id = v.shop_id and p.id = v.product_id
  left join preorder_variant_counts c on c.shop_id = v.shop_id and c.variant_id = v.id`;

const variantItem = z.strictObject({
  id: z.int().describe("the platform's numeric id"),
  gid: z.string(),
  title: z.string(),
  sku: z.string().nullable(),
  price: z.string().describe("decimal, in the shop's currency"),
  product_id: z.string(),
  product_title: z.string().nullable(),
  inventory_policy: z.string().describe("the platform's policy: DENY stops selling at zero, CONTINUE sells past it"),
  inventory_available: z.int().describe("units available over the shop's active locations, from the catalog mirror"),
  preorder_count: z.int().min(0).describe("units on preorder lines of orders neither cancelled nor refunded, as last counted"),
  offer_count: z.int().min(0).describe("live offers whose variant list has this variant"),
});

const variantDetail = variantItem.extend({
  preorder_count_updated_at: timestampOutput.nullable().describe("when preorder_count was last counted; null: never (it reads 0)"),
  preorder_count_live: z.int().min(0).describe("the same count computed now from the orders; differs from preorder_count only until a recount"),
  inventory: z.strictObject({
    available: z.int(),
    locations: z.array(z.strictObject({ location_id: z.string(), name: z.string().nullable(), active: z.boolean(), available: z.int() })),
  }),
  offers_url: z.string().describe("path of the variant's offer list"),
});

function presentItem(row: VariantRow): z.output<typeof variantItem> {
  return {
    id: Number(row.legacy_id),
    gid: row.id,
    title: row.title,
    sku: row.sku,
    price: row.price,
    product_id: row.product_id,
    product_title: row.product_title,
    inventory_policy: row.inventory_policy,
    inventory_available: row.available,
    preorder_count: row.preorder_count,
    offer_count: row.offer_count,
  };
}

export const variantParams = z.strictObject({ id: z.string() });

/** The mirrored variant of this shop by its number or gid; 404 `Product variant not found: <id>` otherwise. */
export async function findVariant(ctx: ActionContext, id: string): Promise<VariantRow> {
  await assertCatalogMirrored(ctx.db, ctx.shopId);
  const { rows } = await ctx.db.query<VariantRow>(`${SELECT} where v.shop_id = $1 and v.id = $2`, [ctx.shopId, platformGid("ProductVariant", id)]);
  const row = rows[0];
  if (!row) throw notFound(VARIANT_RESOURCE, id);
  return row;
}

async function variantView(ctx: ActionContext, row: VariantRow): Promise<z.output<typeof variantDetail>> {
  const { rows: levels } = await ctx.db.query<{ location_id: string; name: string | null; active: boolean | null; available: number }>(
    `select l.location_id, loc.name, loc.active, l.available from inventory_levels l
     left join locations loc on loc.shop_id = l.shop_id and loc.id = l.location_id
     where l.shop_id = $1 and l.inventory_item_id = $2 order by l.location_id`,
    [ctx.shopId, row.inventory_item_id],
  );
  const live = await preorderCountsForVariants(ctx.db, ctx.shopId, [row.id]);
  return {
    ...presentItem(row),
    preorder_count_updated_at: row.preorder_count_updated_at?.toISOString() ?? null,
    preorder_count_live: live.get(row.id) ?? 0,
    inventory: {
      available: row.available,
      locations: levels.map((l) => ({ location_id: l.location_id, name: l.name, active: l.active ?? true, available: l.available })),
    },
    offers_url: `/api/v2/external${PATH}/${row.legacy_id}/offers`,
  };
}

export const listProductVariants = defineAction({
  name: "preorders.product_variants.list",
  method: "GET",
  path: PATH,
  description: `The shop's product variants from the catalog mirror, by numeric id, with their preorder_count, inventory and how many offers list them. Filters: offer_id (variants on that offer's list), product_id (a number or gid), has_preorders (true: preorder_count above 0; false: none). Answers { variants, page, per_page, total, next_cursor }. ${PAGING_RULE}.`,
  notes: [
    "preorder_count is the stored count that order ingestion keeps and the recalculations rewrite; GET /preorders/product_variants/{id} also shows the count computed now.",
    "inventory_available sums the mirror's inventory levels over active locations; for a live reading use GET /preorders/products/inventory_status.",
  ],
  aliases: ["list product variants with preorder counts", "which variants have preorders", "list the variants of a product"],
  kind: "read",
  input: z
    .strictObject({
      ...pagingParams(z.tuple([cursorPart.bigint, cursorPart.text])),
      offer_id: offerId.optional(),
      product_id: platformId("Product").optional(),
      has_preorders: queryBoolean.optional(),
    })
    .superRefine(pageOrCursor),
  output: pageOutput("variants", variantItem),
  async handler(ctx, { input }) {
    await assertCatalogMirrored(ctx.db, ctx.shopId);
    const p = paging(input);
    const where = `v.shop_id = $1
      and ($2::uuid is null or exists (select 1 from preorder_offer_variants ov where ov.shop_id = $1 and ov.offer_id = $2 and ov.variant_id = v.id))
      and ($3::text is null or v.product_id = $3)
      and ($4::boolean is null or (coalesce(c.preorder_count, 0) > 0) = $4)`;
    const values = [ctx.shopId, input.offer_id ?? null, input.product_id ?? null, input.has_preorders ?? null];
    const { rows: counted } = await ctx.db.query<{ n: number }>(
      `select count(*)::int as n from variants v left join preorder_variant_counts c on c.shop_id = v.shop_id and c.variant_id = v.id where ${where}`,
      values,
    );
    const { rows } = await ctx.db.query<VariantRow>(
      `${SELECT} where ${where} and ($5::bigint is null or (v.legacy_id, v.id) > ($5::bigint, $6::text))
       order by v.legacy_id, v.id limit ${String(p.limit)} offset ${String(p.offset)}`,
      [...values, p.after?.[0] ?? null, p.after?.[1] ?? null],
    );
    return pageAnswer("variants", p, rows, counted[0]?.n ?? 0, (r) => [r.legacy_id, r.id], presentItem);
  },
});

export const getProductVariant = defineAction({
  name: "preorders.product_variants.get",
  method: "GET",
  path: `${PATH}/{id}`,
  description:
    "One product variant (its numeric id) from the catalog mirror: title, sku, price, product, inventory_policy, preorder_count (as last counted) with when it was counted and the count computed now (preorder_count_live), the inventory per location, and how many offers list it (offers_url lists them).",
  notes: ["404 when the variant is not in the shop's catalog mirror (the platform deleted it, or it is another shop's)."],
  aliases: ["show a product variant with its preorder count", "read the inventory of a variant"],
  kind: "read",
  params: variantParams,
  input: z.strictObject({}),
  output: variantDetail,
  async handler(ctx, { params }) {
    return variantView(ctx, await findVariant(ctx, params.id));
  },
});

const variantOfferItem = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  status: z.enum(OFFER_STATUSES),
  source: z.enum(PRODUCT_SOURCES),
  added_at: timestampOutput.describe("when the variant joined the offer's list"),
});

export const listProductVariantOffers = defineAction({
  name: "preorders.product_variants.offers.list",
  method: "GET",
  path: `${PATH}/{id}/offers`,
  description:
    "The live offers whose variant list has this variant (chosen for a custom offer, resolved for an all or collection one), oldest first. Answers { variant_id, offers: [{ id, name, status, source, added_at }] }. GET /preorders/offer_lookup tells which of them applies.",
  notes: ["Not paged: a variant is on few offers.", "Deleted offers are left out."],
  aliases: ["list the offers of a variant", "which offers contain this variant"],
  kind: "read",
  params: variantParams,
  input: z.strictObject({}),
  output: z.strictObject({ variant_id: z.int(), offers: z.array(variantOfferItem) }),
  async handler(ctx, { params }) {
    const variant = await findVariant(ctx, params.id);
    const { rows } = await ctx.db.query<{ id: string; name: string; status: string; source: string; added_at: Date }>(
      `select o.id, o.name, o.status, o.products_source as source, ov.added_at
       from preorder_offer_variants ov join preorder_offers o on o.id = ov.offer_id
       where ov.shop_id = $1 and ov.variant_id = $2 and o.deleted_at is null
       order by o.created_at, o.id`,
      [ctx.shopId, variant.id],
    );
    return { variant_id: Number(variant.legacy_id), offers: rows.map((r) => ({ ...r, added_at: r.added_at.toISOString() })) };
  },
});

export const recalculateProductVariantCount = defineAction({
  name: "preorders.product_variants.recalculate_preorder_count",
  method: "POST",
  path: `${PATH}/{id}/recalculate_preorder_count`,
  description:
    "Recounts one variant's preorder_count now (units on preorder lines of orders neither cancelled nor refunded), synchronously, with the same statement as bulk_recalculate_preorder_counts. Answers the variant as GET /preorders/product_variants/{id} does, with the new count.",
  notes: ["Synchronous: one variant is one small statement; for many variants use POST /preorders/product_variants/bulk_recalculate_preorder_counts (a job)."],
  aliases: ["recount preorders of one variant", "fix the preorder count of a variant"],
  kind: "write",
  params: variantParams,
  input: z.strictObject({}),
  output: variantDetail,
  async handler(ctx, { params }) {
    const variant = await findVariant(ctx, params.id);
    await refreshVariantCounts(ctx.db, ctx.shopId, [variant.id]);
    return variantView(ctx, await findVariant(ctx, params.id));
  },
});
