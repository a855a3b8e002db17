import type { Db } from "../../core/db.ts";
import { Filters } from "../../core/sql-filters.ts";
import { money, rate } from "./report-queries.ts";

/**
 * PRODUCTS IN BACK-IN-STOCK DEMAND: per product with signups (its product from the catalog
 * mirror, else the one the signup recorded), the signup counts of it and of each variant (and the
 * units its waiting signups want: their quantities summed, decision 0246), and
 * the stock available now in the mirror (summed over locations, as the products_in_demand
 * report and the copilot read it; null when the mirror holds no level).
 */

interface DemandCounts {
  signups: number;
  waiting: number;
  units_wanted: number;
  notified: number;
  conversions: number;
  conversion_rate: number;
}

interface DemandVariant extends DemandCounts {
  id: string;
  title: string | null;
  sku: string | null;
  price: number | null;
  available: number | null;
}

interface DemandProduct extends DemandCounts {
  id: string;
  title: string | null;
  handle: string | null;
  status: string | null;
  available: number | null;
  variants: DemandVariant[];
}

interface CountsRow {
  signups: number;
  waiting: number;
  units_wanted: number;
  notified: number;
  conversions: number;
}

interface ProductRow extends CountsRow {
  product_id: string;
  title: string | null;
  handle: string | null;
  status: string | null;
  waiting_key: string;
}

interface VariantRow extends CountsRow {
  product_id: string;
  variant_id: string;
  title: string | null;
  sku: string | null;
  price: string | null;
  available: number | null;
}

/** Signup counts per product and variant of the shop ($1); the product is the mirror's, else the signup's. */
const PER_VARIANT = `
  select coalesce(v.product_id, s.product_id) as product_id, s.variant_id,
         count(*)::int as signups,
         count(*) filter (where s.status = 'waiting')::int as waiting,
         coalesce(sum(s.quantity) filter (where s.status = 'waiting'), 0)::int as units_wanted,
         count(*) filter (where s.notified_at is not null)::int as notified,
         count(*) filter (where s.converted_at is not null)::int as conversions
  from bis_signups s left join variants v on v.shop_id = $1 and v.id = s.variant_id
  where s.shop_id = $1
  group by 1, 2`;

const counts = (r: CountsRow): DemandCounts => ({
  signups: r.signups,
  waiting: r.waiting,
  units_wanted: r.units_wanted,
  notified: r.notified,
  conversions: r.conversions,
  conversion_rate: rate(r.conversions, r.notified),
});

/**
 * A page of products by waiting signups (most first, then product id), or one product
 * (`productId`: answered even without signups when the mirror has it). `after` continues after
 * [waiting, product id].
 */
export async function demandProducts(
  db: Db,
  shopId: string,
  options: { productId?: string; after?: readonly [string, string] | undefined; limit: number; offset: number },
): Promise<{ rows: (DemandProduct & { cursor: [string, string] })[]; total: number }> {
  // One product: $2 is its id, and the rows are those of that product alone.
  const where = new Filters(options.productId === undefined ? [shopId] : [shopId, options.productId]);
  const products = options.productId !== undefined
    ? `select coalesce(pr.product_id, p.id) as product_id, coalesce(pr.signups, 0)::int as signups, coalesce(pr.waiting, 0)::int as waiting,
              coalesce(pr.units_wanted, 0)::int as units_wanted, coalesce(pr.notified, 0)::int as notified, coalesce(pr.conversions, 0)::int as conversions
       from (select * from products where shop_id = $1 and id = $2) p full join (select * from per_product where product_id = $2) pr on pr.product_id = p.id`
    : "select * from per_product";
  const base = `
    with per_variant as (${PER_VARIANT}),
    per_product as (
      select product_id, sum(signups)::int as signups, sum(waiting)::int as waiting, sum(units_wanted)::int as units_wanted, sum(notified)::int as notified, sum(conversions)::int as conversions
      from per_variant where product_id is not null group by product_id
    ),
    d as (${products})`;
  const { rows: counted } = await db.query<{ n: number }>(`${base} select count(*)::int as n from d where ${where.sql()}`, where.params);
  if (options.after) {
    const waiting = where.param(options.after[0]);
    const product = where.param(options.after[1]);
    where.add(`(d.waiting < ${waiting}::bigint or (d.waiting = ${waiting}::bigint and d.product_id > ${product}))`);
  }
  const { rows } = await db.query<ProductRow>(
    `${base}
     select d.*, d.waiting::text as waiting_key, p.title, p.handle, p.status
     from d left join products p on p.shop_id = $1 and p.id = d.product_id
     where ${where.sql()}
     order by d.waiting desc, d.product_id
     limit ${where.param(options.limit)} offset ${where.param(options.offset)}`,
    where.params,
  );
  if (rows.length === 0) return { rows: [], total: counted[0]?.n ?? 0 };
  const { rows: variants } = await db.query<VariantRow>(
    `with per_variant as (${PER_VARIANT})
     select coalesce(v.product_id, pv.product_id) as product_id, coalesce(v.id, pv.variant_id) as variant_id, v.title, v.sku, v.price::text as price,
            (select sum(il.available)::int from inventory_levels il where il.shop_id = $1 and il.inventory_item_id = v.inventory_item_id) as available,
            coalesce(pv.signups, 0)::int as signups, coalesce(pv.waiting, 0)::int as waiting,
            coalesce(pv.units_wanted, 0)::int as units_wanted, coalesce(pv.notified, 0)::int as notified, coalesce(pv.conversions, 0)::int as conversions
     from (select * from variants where shop_id = $1 and product_id = any($2::text[])) v
     full join (select * from per_variant where product_id = any($2::text[])) pv on pv.variant_id = v.id
     order by waiting desc, variant_id`,
    [shopId, rows.map((r) => r.product_id)],
  );
  return {
    total: counted[0]?.n ?? 0,
    rows: rows.map((r) => {
      const own = variants.filter((v) => v.product_id === r.product_id);
      const stocked = own.filter((v) => v.available !== null);
      return {
        id: r.product_id,
        title: r.title,
        handle: r.handle,
        status: r.status,
        ...counts(r),
        available: stocked.length === 0 ? null : stocked.reduce((sum, v) => sum + (v.available ?? 0), 0),
        variants: own.map((v) => ({
          id: v.variant_id,
          title: v.title,
          sku: v.sku,
          price: v.price === null ? null : money(v.price),
          available: v.available,
          ...counts(v),
        })),
        cursor: [r.waiting_key, r.product_id],
      };
    }),
  };
}
