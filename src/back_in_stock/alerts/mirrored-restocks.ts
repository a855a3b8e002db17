import type pg from "pg";
import { withTransaction } from "../../core/db.ts";
import type { Log } from "../../logger.ts";
import type { InventoryLevelRecord } from "../../platform/catalog.ts";
import { upsertInventoryLevels } from "../../catalog/mirror.ts";
import { type StockBefore, loadRestockRules, openMirroredRestockRuns, queueRestockBurst } from "./runs.ts";
import { itemStocksQuery } from "./stock.ts";

const ITEMS_STOCKS = { name: "bis_items_stocks", text: itemStocksQuery("$1::uuid", "any($2::text[])") };

/**
 * A catalog sync's page of inventory levels, written with the restock detection of an inventory
 * webhook: in one transaction the stock of the page's items' variants before the write, the write,
 * and the runs of the variants it restocked (openMirroredRestockRuns); the shop's burst is queued
 * after the commit. Without it, a sync that mirrored a restock before its webhook arrived left the
 * webhook no rise to see: the alerts waited for the inventory check, up to 10 minutes (issue 30,
 * bench:latency with a full sync beside the webhook side: 131 s, then over 300 s). A burst that
 * cannot be queued leaves the runs to the recovery sweep, as the intake does. Answers the rows written.
 */
export async function upsertLevelsOpeningRestocks(pool: pg.Pool, log: Log, shopId: string, seenAt: Date, rows: InventoryLevelRecord[]): Promise<number> {
  if (rows.length === 0) return 0;
  const items = [...new Set(rows.map((r) => r.inventoryItemId))];
  const { written, opened } = await withTransaction(pool, async (db) => {
    const { rows: stocks } = await db.query<{ variant_id: string; available: number }>({ ...ITEMS_STOCKS, values: [shopId, items] });
    const before: StockBefore[] = stocks.map((s) => ({ variant_id: s.variant_id, available: s.available }));
    const count = await upsertInventoryLevels(db, shopId, seenAt, rows);
    return { written: count, opened: await openMirroredRestockRuns(db, shopId, items, before, await loadRestockRules(db, shopId)) };
  });
  if (opened > 0) {
    try {
      await queueRestockBurst(pool, shopId);
    } catch (error) {
      log.warn({ err: error, shopId, opened }, "restock burst not queued after the catalog sync's write; the recovery sweep will send its runs");
    }
  }
  return written;
}
