import type { Db } from "../../core/db.ts";
import { platformGid } from "../../core/params.ts";

/**
 * Units of a variant on live preorder lines: lines on a selling plan whose order is neither
 * cancelled nor refunded. One definition, used by the live count and the stored one.
 */
const LIVE_UNITS = `
  select l.variant_id, sum(l.quantity)::int as units
  from preorder_order_lines l
  join preorder_orders o on o.id = l.order_id
  where l.shop_id = $1 and l.variant_id = any($2::text[]) and l.selling_plan_id is not null
    and o.status not in ('cancelled', 'refunded')
  group by l.variant_id`;

/**
 * preorder_count per variant, computed now in one statement (for `limits.total.current_count`).
 * Takes variant ids as the platform's numbers or gids; answers a map keyed by the ids as given,
 * with 0 for a variant without preorders.
 */
export async function preorderCountsForVariants(db: Db, shopId: string, variantIds: readonly (string | number)[]): Promise<Map<string, number>> {
  const given = variantIds.map(String);
  const gids = [...new Set(given.map((id) => platformGid("ProductVariant", id)))];
  const counts = new Map<string, number>();
  if (gids.length > 0) {
    const { rows } = await db.query<{ variant_id: string; units: number }>(LIVE_UNITS, [shopId, gids]);
    for (const row of rows) counts.set(row.variant_id, row.units);
  }
  return new Map(given.map((id) => [id, counts.get(platformGid("ProductVariant", id)) ?? 0]));
}

/**
 * Recomputes the stored preorder_variant_counts of these variants in one INSERT ... SELECT ... ON
 * CONFLICT; a variant without live preorders gets 0. Answers how many rows it wrote.
 *
 * Run it inside a transaction: it takes the shop's count lock until commit, so two transactions
 * that change orders of the same variant count one after the other, the second seeing the first's
 * committed lines (each statement of READ COMMITTED takes a new snapshot after the lock).
 */
export async function refreshVariantCounts(db: Db, shopId: string, variantIds: readonly string[]): Promise<number> {
  const gids = [...new Set(variantIds.map((id) => platformGid("ProductVariant", id)))];
  if (gids.length === 0) return 0;
  await db.query("select pg_advisory_xact_lock(hashtext('preorder_counts:' || $1))", [shopId]);
  const { rowCount } = await db.query(
    `with live as (${LIVE_UNITS})
     insert into preorder_variant_counts (shop_id, variant_id, preorder_count, updated_at)
     select $1, v.id, coalesce(live.units, 0), now()
     from unnest($2::text[]) as v(id) left join live on live.variant_id = v.id
     on conflict (shop_id, variant_id) do update set preorder_count = excluded.preorder_count, updated_at = excluded.updated_at`,
    [shopId, gids],
  );
  return rowCount ?? 0;
}

/** The stored counts (as last recomputed), keyed by variant gid. */
export async function storedVariantCounts(db: Db, shopId: string, variantIds: readonly string[]): Promise<Map<string, number>> {
  const gids = [...new Set(variantIds.map((id) => platformGid("ProductVariant", id)))];
  const { rows } = await db.query<{ variant_id: string; preorder_count: number }>(
    "select variant_id, preorder_count from preorder_variant_counts where shop_id = $1 and variant_id = any($2::text[])",
    [shopId, gids],
  );
  return new Map(rows.map((r) => [r.variant_id, r.preorder_count]));
}

/** Variants on the preorder lines of these orders: what a change to the orders moves. */
export async function variantsOfOrders(db: Db, orderIds: readonly string[]): Promise<string[]> {
  if (orderIds.length === 0) return [];
  const { rows } = await db.query<{ variant_id: string }>(
    "select distinct variant_id from preorder_order_lines where order_id = any($1::uuid[]) and selling_plan_id is not null and variant_id is not null",
    [orderIds],
  );
  return rows.map((r) => r.variant_id);
}
