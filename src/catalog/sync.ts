import type pg from "pg";
import type { Log } from "../logger.ts";
import type { PlatformClient } from "../platform/client.ts";
import {
  type InventoryLevelRecord,
  collectionPages,
  inventoryPages,
  locationPages,
  marketPages,
  productPages,
  variantCount,
  variantPages,
} from "../platform/catalog.ts";
import {
  deleteUnseen,
  upsertCollections,
  upsertInventoryLevels,
  upsertLocations,
  upsertMarkets,
  upsertProducts,
  upsertVariants,
} from "./mirror.ts";

export type SyncMode = "full" | "incremental";

interface SyncResult {
  mode: SyncMode;
  products: number;
  variants: number;
  inventory_levels: number;
  locations: number;
  markets: number;
  collections: number;
  deleted: number;
}

interface SyncState {
  last_full_sync_at: Date | null;
  products_updated_mark: Date | null;
  variants_updated_mark: Date | null;
  inventory_updated_mark: Date | null;
}

function later(a: string | undefined, b: string): string {
  return a === undefined || Date.parse(b) > Date.parse(a) ? b : a;
}

/**
 * Mirrors a shop's catalog from the platform. Full: everything, then removes what the run did not
 * see. Incremental: only what changed after the marks of the last run (small lists are refreshed
 * whole). Pages stream through: memory stays flat whatever the catalog's size.
 */
export async function syncCatalog(options: {
  pool: pg.Pool;
  client: PlatformClient;
  shopId: string;
  mode: SyncMode;
  log: Log;
  /** Variants mirrored so far, and (a full sync) how many the store has, counted before the first page. */
  progress?: (variants: number, total?: number) => Promise<void>;
  signal?: AbortSignal;
  /**
   * Writes a page of inventory levels (default: the mirror's upsert). The sync job's writes the
   * page with restock detection (src/back_in_stock/alerts/mirrored-restocks.ts), so a restock the
   * sync mirrors before its webhook arrives still alerts at once.
   */
  writeLevels?: (shopId: string, seenAt: Date, rows: InventoryLevelRecord[]) => Promise<number>;
}): Promise<SyncResult> {
  const { pool, client, shopId, log } = options;
  const paging = { signal: options.signal };
  const writeLevels = options.writeLevels ?? ((shop: string, seenAt: Date, rows: InventoryLevelRecord[]) => upsertInventoryLevels(pool, shop, seenAt, rows));
  const { rows: clock } = await pool.query<{ now: Date }>("select now()");
  const runStart = clock[0]?.now ?? new Date();
  const { rows: states } = await pool.query<SyncState>("select * from catalog_sync_state where shop_id = $1", [shopId]);
  const state = states[0];
  // Without a completed full run there is nothing to be incremental about.
  const mode: SyncMode = options.mode === "incremental" && state?.last_full_sync_at ? "incremental" : "full";
  const since = (mark: Date | null | undefined) => (mode === "incremental" && mark ? mark.toISOString() : undefined);
  const result: SyncResult = { mode, products: 0, variants: 0, inventory_levels: 0, locations: 0, markets: 0, collections: 0, deleted: 0 };
  // Counted first, so the progress has its total from the first report: a first sync of a large
  // catalog takes minutes. An incremental run pages only what changed, which the count cannot
  // filter (productVariantsCount takes no search fields): its total stays unknown. A count the
  // platform refuses costs the total, not the sync.
  let total: number | undefined;
  if (mode === "full" && options.progress) {
    total = await variantCount(client, paging).catch((error: unknown) => {
      if (options.signal?.aborted) throw error;
      log.warn({ err: error, shopId }, "catalog sync: variants not counted; progress without a total");
      return undefined;
    });
    await options.progress(0, total);
  }

  const locations: { id: string; active: boolean }[] = [];
  for await (const page of locationPages(client, paging)) {
    await upsertLocations(pool, shopId, runStart, page);
    locations.push(...page);
    result.locations += page.length;
  }
  for await (const page of marketPages(client, paging)) {
    await upsertMarkets(pool, shopId, runStart, page);
    result.markets += page.length;
  }
  for await (const page of collectionPages(client, paging)) {
    await upsertCollections(pool, shopId, runStart, page);
    result.collections += page.length;
  }
  result.deleted += await deleteUnseen(pool, "locations", shopId, runStart);
  result.deleted += await deleteUnseen(pool, "markets", shopId, runStart);
  result.deleted += await deleteUnseen(pool, "collections", shopId, runStart);

  let productsMark: string | undefined;
  for await (const page of productPages(client, since(state?.products_updated_mark), paging)) {
    await upsertProducts(pool, shopId, runStart, page);
    for (const p of page) productsMark = later(productsMark, p.updatedAt);
    result.products += page.length;
  }
  let variantsMark: string | undefined;
  for await (const page of variantPages(client, since(state?.variants_updated_mark), paging)) {
    await upsertVariants(pool, shopId, runStart, page);
    for (const v of page) variantsMark = later(variantsMark, v.updatedAt);
    result.variants += page.length;
    await options.progress?.(result.variants, total);
  }
  let inventoryMark: string | undefined;
  for (const location of locations.filter((l) => l.active)) {
    for await (const page of inventoryPages(client, location.id, since(state?.inventory_updated_mark), paging)) {
      await writeLevels(shopId, runStart, page);
      for (const l of page) inventoryMark = later(inventoryMark, l.updatedAt);
      result.inventory_levels += page.length;
    }
  }
  if (mode === "full") {
    for (const table of ["inventory_levels", "variants", "products"] as const) {
      result.deleted += await deleteUnseen(pool, table, shopId, runStart);
    }
  }
  await pool.query(
    `insert into catalog_sync_state (shop_id, last_full_sync_at, last_sync_at, products_updated_mark, variants_updated_mark, inventory_updated_mark)
     values ($1, case when $2 then $3::timestamptz end, $3, $4, $5, $6)
     on conflict (shop_id) do update set
       last_full_sync_at = coalesce(excluded.last_full_sync_at, catalog_sync_state.last_full_sync_at),
       last_sync_at = excluded.last_sync_at,
       products_updated_mark = greatest(excluded.products_updated_mark, catalog_sync_state.products_updated_mark),
       variants_updated_mark = greatest(excluded.variants_updated_mark, catalog_sync_state.variants_updated_mark),
       inventory_updated_mark = greatest(excluded.inventory_updated_mark, catalog_sync_state.inventory_updated_mark)`,
    [shopId, mode === "full", runStart, productsMark ?? null, variantsMark ?? null, inventoryMark ?? null],
  );
  log.info({ shopId, ...result }, "catalog sync finished");
  return result;
}
