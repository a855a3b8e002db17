import type { Db } from "../../core/db.ts";
import type { Log } from "../../logger.ts";
import { getInventoryLevels } from "../../platform/operations/inventory.ts";
import type { PlatformRuntime } from "../../platform/runtime.ts";

/**
 * Sellable units of a variant: the sum of `available` over the locations of its inventory item,
 * each location counted from 0 (an oversold location does not eat another's stock), locations
 * known to be inactive left out. A variant the mirror does not know has 0.
 */
const MIRROR_STOCK = `
  select coalesce(sum(greatest(il.available, 0)), 0)::int as available,
         max(il.seen_at) as changed_at
  from variants v
  join inventory_levels il on il.shop_id = v.shop_id and il.inventory_item_id = v.inventory_item_id
  where v.shop_id = $1 and v.id = $2
    and not exists (select 1 from locations l where l.shop_id = il.shop_id and l.id = il.location_id and not l.active)`;

export interface MirrorStock {
  available: number;
  /** When the mirror last wrote a level of this variant (a webhook or a sync). */
  changedAt: Date | null;
}

export async function mirrorStock(db: Db, shopId: string, variantId: string): Promise<MirrorStock> {
  const { rows } = await db.query<{ available: number; changed_at: Date | null }>(MIRROR_STOCK, [shopId, variantId]);
  return { available: rows[0]?.available ?? 0, changedAt: rows[0]?.changed_at ?? null };
}

/** Stock of several variants of one shop at once (the reminder scan). */
export async function mirrorStocks(db: Db, shopId: string, variantIds: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ variant_id: string; available: number }>(
    `select v.id as variant_id, coalesce(sum(greatest(il.available, 0)), 0)::int as available
     from variants v
     join inventory_levels il on il.shop_id = v.shop_id and il.inventory_item_id = v.inventory_item_id
     where v.shop_id = $1 and v.id = any($2::text[])
       and not exists (select 1 from locations l where l.shop_id = il.shop_id and l.id = il.location_id and not l.active)
     group by v.id`,
    [shopId, variantIds],
  );
  return new Map(rows.map((r) => [r.variant_id, r.available]));
}

/**
 * The stock query of the variants of one inventory item (what an inventory webhook names), with
 * the shop and the item as the given parameters (`$1`, `$2`): a statement that does more may
 * embed it. Answers variant_id, legacy_id and available per variant.
 */
export function itemStocksQuery(shopParam: string, itemParam: string): string {
  return `select v.id as variant_id, v.legacy_id::text as legacy_id,
            coalesce(sum(greatest(il.available, 0)) filter (
              where not exists (select 1 from locations l where l.shop_id = il.shop_id and l.id = il.location_id and not l.active)), 0)::int as available
     from variants v
     left join inventory_levels il on il.shop_id = v.shop_id and il.inventory_item_id = v.inventory_item_id
     where v.shop_id = ${shopParam} and v.inventory_item_id = ${itemParam}
     group by v.id, v.legacy_id`;
}

/** Stock of the variants of one inventory item (what an inventory webhook names). */
export async function itemStocks(db: Db, shopId: string, inventoryItemId: string): Promise<Map<string, { variantId: string; legacyId: string; available: number }>> {
  const { rows } = await db.query<{ variant_id: string; legacy_id: string; available: number }>(itemStocksQuery("$1", "$2"), [shopId, inventoryItemId]);
  return new Map(rows.map((r) => [r.variant_id, { variantId: r.variant_id, legacyId: r.legacy_id, available: r.available }]));
}

/** An untracked inventory item is always sellable: a batch then takes this many units as its stock. */
export const UNTRACKED_STOCK = 10_000;

export type StockSource = "platform" | "mirror";

/**
 * The stock a batch is sized by. A shop connected to the store platform is asked live (the mirror
 * can lag a webhook behind, and an alert for stock that sold out again is the worst outcome);
 * a shop without a connection, or a failed call, uses the mirror.
 */
export async function batchStock(
  db: Db,
  platform: PlatformRuntime,
  log: Log,
  shopId: string,
  variantId: string,
): Promise<{ available: number; source: StockSource }> {
  const { rows } = await db.query<{ connected: boolean }>(
    "select platform_graphql_url is not null and platform_access_token is not null as connected from shops where id = $1",
    [shopId],
  );
  if (rows[0]?.connected) {
    try {
      const client = await platform.clientFor(db, shopId);
      const [inventory] = await getInventoryLevels(client, [variantId]);
      if (!inventory) return { available: 0, source: "platform" };
      if (!inventory.tracked) return { available: UNTRACKED_STOCK, source: "platform" };
      const { rows: inactive } = await db.query<{ id: string }>("select id from locations where shop_id = $1 and not active", [shopId]);
      const skip = new Set(inactive.map((r) => r.id));
      const available = inventory.levels.filter((l) => !skip.has(l.locationId)).reduce((sum, l) => sum + Math.max(0, l.available), 0);
      return { available, source: "platform" };
    } catch (error) {
      log.warn({ err: error, shopId, variantId }, "live inventory read failed; using the mirror");
    }
  }
  return { available: (await mirrorStock(db, shopId, variantId)).available, source: "mirror" };
}
