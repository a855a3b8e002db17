import type { Db } from "../core/db.ts";
import { type Paging, pageAnswer } from "../core/paging.ts";

/**
 * Catalog search over the mirror (products, variants, inventory_levels of sql/007): by product
 * title, variant title or SKU, case-insensitive substring. Sorted by title then id; keyset cursor
 * [title, id].
 */

interface ProductVariantOut {
  id: string;
  legacy_id: string;
  title: string;
  sku: string | null;
  price: string;
  inventory_policy: string;
  /** Units available summed over the mirrored locations; null when no level is mirrored. */
  available: number | null;
}

interface ProductOut {
  id: string;
  legacy_id: string | null;
  title: string;
  handle: string;
  status: string;
  vendor: string | null;
  product_type: string | null;
  tags: string[];
  collection_ids: string[];
  total_available: number | null;
  variants: ProductVariantOut[];
}

interface ProductRow {
  id: string;
  title: string;
  handle: string;
  status: string;
  vendor: string | null;
  product_type: string | null;
  tags: string[];
  collection_ids: string[];
}

interface VariantRow extends ProductVariantOut {
  product_id: string;
}

/** `%text%` for ILIKE, with the pattern's own wildcards escaped. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const MATCH = `p.shop_id = $1 and ($2::text is null or p.title ilike $2 or exists (
  select 1 from variants v where v.shop_id = p.shop_id and v.product_id = p.id and (v.title ilike $2 or v.sku ilike $2)))`;

async function withVariants(db: Db, shopId: string, products: readonly ProductRow[]): Promise<ProductOut[]> {
  if (products.length === 0) return [];
  const { rows } = await db.query<VariantRow>(
    `select v.product_id, v.id, v.legacy_id::text as legacy_id, v.title, v.sku, v.price::text as price, v.inventory_policy,
            (select sum(il.available) from inventory_levels il where il.shop_id = v.shop_id and il.inventory_item_id = v.inventory_item_id)::int as available
     from variants v where v.shop_id = $1 and v.product_id = any($2::text[])
     order by v.product_id, v.legacy_id`,
    [shopId, products.map((p) => p.id)],
  );
  return products.map((p) => {
    const variants = rows.filter((v) => v.product_id === p.id).map(({ product_id: _product, ...v }) => v);
    const levels = variants.map((v) => v.available).filter((a): a is number => a !== null);
    return {
      id: p.id,
      legacy_id: /\/(\d+)$/.exec(p.id)?.[1] ?? null,
      title: p.title,
      handle: p.handle,
      status: p.status,
      vendor: p.vendor,
      product_type: p.product_type,
      tags: p.tags,
      collection_ids: p.collection_ids,
      total_available: levels.length > 0 ? levels.reduce((a, b) => a + b, 0) : null,
      variants,
    };
  });
}

const COLUMNS = "p.id, p.title, p.handle, p.status, p.vendor, p.product_type, p.tags, p.collection_ids";

export async function searchProducts(db: Db, shopId: string, query: string | undefined, p: Paging<[string, string]>) {
  const pattern = query && query.trim() !== "" ? containing(query.trim()) : null;
  const { rows: totals } = await db.query<{ n: number }>(`select count(*)::int as n from products p where ${MATCH}`, [shopId, pattern]);
  const after = p.after;
  const { rows } = await db.query<ProductRow>(
    `select ${COLUMNS} from products p
     where ${MATCH} ${after ? "and (p.title, p.id) > ($5::text, $6::text)" : ""}
     order by p.title, p.id limit $3 offset $4`,
    after ? [shopId, pattern, p.limit, p.offset, after[0], after[1]] : [shopId, pattern, p.limit, p.offset],
  );
  const products = await withVariants(db, shopId, rows);
  return pageAnswer("products", p, products, totals[0]?.n ?? 0, (r) => [r.title, r.id], (r) => r);
}

export async function findProduct(db: Db, shopId: string, id: string): Promise<ProductOut | undefined> {
  const { rows } = await db.query<ProductRow>(`select ${COLUMNS} from products p where p.shop_id = $1 and p.id = $2`, [shopId, id]);
  const [product] = await withVariants(db, shopId, rows);
  return product;
}
