import { withTransaction } from "../core/db.ts";
import { createApiKey, createShop } from "../db/api-keys.ts";
import type pg from "pg";

/**
 * Creates the demo shop on first start, with locations and markets to read until the platform
 * sync fills them. Answers the new API key once; undefined when the demo shop already exists.
 */
export async function ensureDemoShop(pool: pg.Pool, demoKey: string | undefined): Promise<{ shopId: string; apiKey: string } | undefined> {
  return withTransaction(pool, async (db) => {
    // Two processes starting at once: the second waits here, then sees the demo shop.
    await db.query("select pg_advisory_xact_lock(7215300002)");
    const existing = await db.query("select id from shops where is_demo");
    if ((existing.rowCount ?? 0) > 0) return undefined;
    const shopId = await createShop(db, "Demo Store", { demo: true });
    const { apiKey } = await createApiKey(db, shopId, demoKey);
    await db.query(
      `update shops set published_locales = '{en,fr,de,es}' where id = $1`,
      [shopId],
    );
    await db.query(
      `insert into locations (shop_id, id, name, active) values
         ($1, 'gid://platform/Location/1', 'Main warehouse', true),
         ($1, 'gid://platform/Location/2', 'Downtown store', true),
         ($1, 'gid://platform/Location/3', 'Old depot', false)`,
      [shopId],
    );
    await db.query(
      `insert into markets (shop_id, id, name, active, is_primary, countries, location_ids) values
         ($1, 'gid://platform/Market/1', 'United States', true, true, '{US}', '{gid://platform/Location/1,gid://platform/Location/2}'),
         ($1, 'gid://platform/Market/2', 'Europe', true, false, '{FR,DE,ES}', '{gid://platform/Location/1}'),
         ($1, 'gid://platform/Market/3', 'Japan', false, false, '{JP}', '{}')`,
      [shopId],
    );
    return { shopId, apiKey };
  });
}
