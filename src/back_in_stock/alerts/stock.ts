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

/**
 * Whether the signup `s` (an alias of bis_signups) may be alerted by the variant's stock now as
 * far as its market goes (decision 0246): a signup without a market, or whose market the mirror
 * does not have or has with no location linked, by any stock (the rest of the run's rules decide);
 * a signup made in a market with linked locations only when the mirror holds a positive level of
 * its variant at one of those locations that is not known to be inactive: the stock that market
 * sells from. SQL over the signup's own columns: it adds to a queue's filter without a parameter.
 */
export const signupMarketStockedSql = (s: string): string => `(${s}.market_id is null
  or not exists (select 1 from markets m where m.shop_id = ${s}.shop_id and m.id = ${s}.market_id and cardinality(m.location_ids) > 0)
  or exists (
    select 1 from markets m
    join variants v on v.shop_id = m.shop_id and v.id = ${s}.variant_id
    join inventory_levels il on il.shop_id = v.shop_id and il.inventory_item_id = v.inventory_item_id and il.location_id = any(m.location_ids)
    where m.shop_id = ${s}.shop_id and m.id = ${s}.market_id and il.available > 0
      and not exists (select 1 from locations l where l.shop_id = il.shop_id and l.id = il.location_id and not l.active)))`;

interface MirrorStock {
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
const UNTRACKED_STOCK = 10_000;

type StockSource = "platform" | "mirror";

/**
 * The stock a batch is sized by. A shop connected to the store platform is asked live (the mirror
 * can lag a webhook behind, and an alert for stock that sold out again is the worst outcome);
 * a shop without a connection, or a failed call, uses the mirror. Live reads of one shop asked
 * together (the later batches of variants restocked at once, the runs an inventory check or a
 * recovery starts) go to the platform in one `nodes(ids:)` call (liveReads).
 */
export async function batchStock(
  db: Db,
  platform: PlatformRuntime,
  log: Log,
  shopId: string,
  variantId: string,
): Promise<{ available: number; source: StockSource }> {
  try {
    const available = await liveReads(platform).read(db, shopId, variantId);
    if (available !== undefined) return { available, source: "platform" };
  } catch (error) {
    log.warn({ err: error, shopId, variantId }, "live inventory read failed; using the mirror");
  }
  return { available: (await mirrorStock(db, shopId, variantId)).available, source: "mirror" };
}

/** How long a shop's first live read waits for others to join its call. */
const LIVE_READ_WINDOW_MS = 5;

interface Asked {
  variantId: string;
  resolve: (available: number | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * A small per-shop batcher of live stock reads: the reads of one shop asked within
 * LIVE_READ_WINDOW_MS of the first go in one getInventoryLevels call (as many variants per query
 * as the platform's cost cap allows), instead of one query and its cost each. Answers the
 * sellable units of each variant, or undefined for every read of a shop that is not connected;
 * a failed call fails every read in it (each falls back to the mirror).
 */
class LiveStockReads {
  private readonly platform: PlatformRuntime;
  private readonly windowMs: number;
  private readonly waiting = new Map<string, { db: Db; asked: Asked[] }>();

  constructor(platform: PlatformRuntime, windowMs = LIVE_READ_WINDOW_MS) {
    this.platform = platform;
    this.windowMs = windowMs;
  }

  read(db: Db, shopId: string, variantId: string): Promise<number | undefined> {
    return new Promise((resolve, reject) => {
      let group = this.waiting.get(shopId);
      if (!group) {
        const created = { db, asked: [] as Asked[] };
        this.waiting.set(shopId, created);
        setTimeout(() => {
          this.waiting.delete(shopId);
          void this.call(created.db, shopId, created.asked);
        }, this.windowMs);
        group = created;
      }
      group.asked.push({ variantId, resolve, reject });
    });
  }

  private async call(db: Db, shopId: string, asked: readonly Asked[]): Promise<void> {
    try {
      const stocks = await this.stocks(db, shopId, [...new Set(asked.map((a) => a.variantId))]);
      for (const a of asked) a.resolve(stocks && (stocks.get(a.variantId) ?? 0));
    } catch (error) {
      for (const a of asked) a.reject(error);
    }
  }

  /** Sellable units per variant, live (a variant the platform does not know: absent, so 0), or undefined when the shop is not connected. */
  private async stocks(db: Db, shopId: string, variantIds: readonly string[]): Promise<Map<string, number> | undefined> {
    const { rows } = await db.query<{ connected: boolean; inactive: string[] }>(
      `select platform_graphql_url is not null and platform_access_token is not null as connected,
              array(select l.id from locations l where l.shop_id = s.id and not l.active) as inactive
       from shops s where id = $1`,
      [shopId],
    );
    const shop = rows[0];
    if (!shop?.connected) return undefined;
    const client = await this.platform.clientFor(db, shopId);
    const skip = new Set(shop.inactive);
    const stocks = new Map<string, number>();
    for (const inventory of await getInventoryLevels(client, variantIds)) {
      const available = inventory.tracked
        ? inventory.levels.filter((l) => !skip.has(l.locationId)).reduce((sum, l) => sum + Math.max(0, l.available), 0)
        : UNTRACKED_STOCK;
      stocks.set(inventory.variantId, available);
    }
    return stocks;
  }
}

const readsOf = new WeakMap<PlatformRuntime, LiveStockReads>();

/** The process's live reads through `platform` (one batcher per platform runtime). */
function liveReads(platform: PlatformRuntime): LiveStockReads {
  let reads = readsOf.get(platform);
  if (!reads) readsOf.set(platform, (reads = new LiveStockReads(platform)));
  return reads;
}
