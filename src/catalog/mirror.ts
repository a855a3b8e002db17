import type { Db } from "../core/db.ts";
import type {
  CollectionRecord,
  InventoryLevelRecord,
  LocationRecord,
  MarketRecord,
  ProductRecord,
  VariantRecord,
} from "../platform/catalog.ts";

// Each write is one set-based statement per page: the page travels as one JSON parameter and
// jsonb_to_recordset turns it back into rows, so 250 rows cost one round trip.

export async function upsertProducts(db: Db, shopId: string, seenAt: Date, rows: ProductRecord[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `insert into products (shop_id, id, title, handle, status, tags, vendor, product_type, collection_ids, platform_updated_at, seen_at)
     select $1, r.id, r.title, r.handle, r.status, r.tags, r.vendor, r."productType", r."collectionIds", r."updatedAt", $3
     from jsonb_to_recordset($2::jsonb) as r(id text, title text, handle text, status text, tags text[], vendor text,
                                              "productType" text, "collectionIds" text[], "updatedAt" timestamptz)
     on conflict (shop_id, id) do update set
       title = excluded.title, handle = excluded.handle, status = excluded.status, tags = excluded.tags,
       vendor = excluded.vendor, product_type = excluded.product_type, collection_ids = excluded.collection_ids,
       platform_updated_at = excluded.platform_updated_at, seen_at = excluded.seen_at`,
    [shopId, JSON.stringify(rows), seenAt],
  );
}

export async function upsertVariants(db: Db, shopId: string, seenAt: Date, rows: VariantRecord[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `insert into variants (shop_id, id, legacy_id, product_id, title, sku, price, inventory_policy, inventory_item_id, platform_updated_at, seen_at)
     select $1, r.id, r."legacyId", r."productId", r.title, r.sku, r.price, r."inventoryPolicy", r."inventoryItemId", r."updatedAt", $3
     from jsonb_to_recordset($2::jsonb) as r(id text, "legacyId" bigint, "productId" text, title text, sku text, price numeric,
                                              "inventoryPolicy" text, "inventoryItemId" text, "updatedAt" timestamptz)
     on conflict (shop_id, id) do update set
       product_id = excluded.product_id, title = excluded.title, sku = excluded.sku, price = excluded.price,
       inventory_policy = excluded.inventory_policy, inventory_item_id = excluded.inventory_item_id,
       platform_updated_at = excluded.platform_updated_at, seen_at = excluded.seen_at`,
    [shopId, JSON.stringify(rows), seenAt],
  );
}

/** Never moves a level back in time: a delayed webhook or page cannot undo a newer quantity. */
/**
 * The upsert of inventory levels: `rows` is a jsonb array of InventoryLevelRecord, `shop` and
 * `seenAt` SQL expressions; `where` limits the rows (the webhook intake's: only for a delivery it
 * accepted). A level older than the stored one keeps the stored stock.
 */
export const inventoryLevelsUpsert = (shop: string, rows: string, seenAt: string, where = "true"): string =>
  `insert into inventory_levels (shop_id, inventory_item_id, location_id, available, platform_updated_at, seen_at)
     select ${shop}, r."inventoryItemId", r."locationId", r.available, r."updatedAt", ${seenAt}
     from jsonb_to_recordset(${rows}) as r("inventoryItemId" text, "locationId" text, available int, "updatedAt" timestamptz)
     where ${where}
     on conflict (shop_id, inventory_item_id, location_id) do update set
       available = case when excluded.platform_updated_at >= inventory_levels.platform_updated_at
                        then excluded.available else inventory_levels.available end,
       platform_updated_at = greatest(excluded.platform_updated_at, inventory_levels.platform_updated_at),
       seen_at = excluded.seen_at`;

const UPSERT_INVENTORY_LEVELS = inventoryLevelsUpsert("$1", "$2::jsonb", "$3");

export async function upsertInventoryLevels(db: Db, shopId: string, seenAt: Date, rows: InventoryLevelRecord[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await db.query(UPSERT_INVENTORY_LEVELS, [shopId, JSON.stringify(rows), seenAt]);
  return result.rowCount ?? 0;
}

export async function upsertCollections(db: Db, shopId: string, seenAt: Date, rows: CollectionRecord[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `insert into collections (shop_id, id, title, handle, platform_updated_at, seen_at)
     select $1, r.id, r.title, r.handle, r."updatedAt", $3
     from jsonb_to_recordset($2::jsonb) as r(id text, title text, handle text, "updatedAt" timestamptz)
     on conflict (shop_id, id) do update set
       title = excluded.title, handle = excluded.handle, platform_updated_at = excluded.platform_updated_at, seen_at = excluded.seen_at`,
    [shopId, JSON.stringify(rows), seenAt],
  );
}

export async function upsertLocations(db: Db, shopId: string, seenAt: Date, rows: LocationRecord[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `insert into locations (shop_id, id, name, active, updated_at, seen_at)
     select $1, r.id, r.name, r.active, now(), $3
     from jsonb_to_recordset($2::jsonb) as r(id text, name text, active boolean)
     on conflict (shop_id, id) do update set name = excluded.name, active = excluded.active, updated_at = now(), seen_at = excluded.seen_at`,
    [shopId, JSON.stringify(rows), seenAt],
  );
}

export async function upsertMarkets(db: Db, shopId: string, seenAt: Date, rows: MarketRecord[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `insert into markets (shop_id, id, name, active, is_primary, countries, location_ids, updated_at, seen_at)
     select $1, r.id, r.name, r.active, r."primary", r.countries, r."locationIds", now(), $3
     from jsonb_to_recordset($2::jsonb) as r(id text, name text, active boolean, "primary" boolean, countries text[], "locationIds" text[])
     on conflict (shop_id, id) do update set
       name = excluded.name, active = excluded.active, is_primary = excluded.is_primary, countries = excluded.countries,
       location_ids = excluded.location_ids, updated_at = now(), seen_at = excluded.seen_at`,
    [shopId, JSON.stringify(rows), seenAt],
  );
}

const MIRROR_TABLES = ["products", "variants", "inventory_levels", "collections", "locations", "markets"] as const;
type MirrorTable = (typeof MIRROR_TABLES)[number];

/** After a full run: what the platform no longer has, the run did not see. */
export async function deleteUnseen(db: Db, table: MirrorTable, shopId: string, runStart: Date): Promise<number> {
  if (!MIRROR_TABLES.includes(table)) throw new Error(`not a mirror table: ${table}`);
  const result = await db.query(`delete from ${table} where shop_id = $1 and seen_at < $2`, [shopId, runStart]);
  return result.rowCount ?? 0;
}
