import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createShop } from "../src/db/api-keys.ts";
import { migrate, readMigrations } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/** The migrations before `id`, in a folder of their own: a database as an earlier version left it. */
async function migrationsBefore(id: number): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "migrations-before-"));
  for (const migration of await readMigrations()) {
    if (migration.id < id) await fs.writeFile(path.join(dir, migration.name), migration.sql);
  }
  return dir;
}

describe("migration 121 (decision 0216)", () => {
  const env = useTestEnv({ database: "empty", app: false, shop: false });

  it("rewrites the gid://platform/ ids an earlier version stored, in text and jsonb columns, to Shopify's gid://shopify/", async () => {
    const pool = new pg.Pool({ connectionString: env.db.url, max: 2 });
    pool.on("error", () => undefined);
    pool.on("connect", (client) => client.on("error", () => undefined));
    const log = createLogger("silent");
    const before = await migrationsBefore(121);
    try {
      await migrate(pool, log, before);
      const shopId = await createShop(pool, "Old Shop");
      await pool.query(
        "insert into products (shop_id, id, title, handle, status, platform_updated_at) values ($1, 'gid://platform/Product/7', 'Kept gid://platform/ in a title', 'p-7', 'ACTIVE', now())",
        [shopId],
      );
      await pool.query(
        "insert into jobs (shop_id, kind, status, payload) values ($1, 'catalog_sync', 'completed', $2)",
        [shopId, JSON.stringify({ variant_ids: ["gid://platform/ProductVariant/9"], note: "x" })],
      );

      await migrate(pool, log);
      const { rows: products } = await pool.query<{ id: string; title: string }>("select id, title from products where shop_id = $1", [shopId]);
      // Every stored gid is the store's; text that merely contains the old prefix is rewritten alike.
      expect(products).toEqual([{ id: "gid://shopify/Product/7", title: "Kept gid://shopify/ in a title" }]);
      const { rows: jobs } = await pool.query<{ payload: unknown }>("select payload from jobs where shop_id = $1", [shopId]);
      expect(jobs).toEqual([{ payload: { variant_ids: ["gid://shopify/ProductVariant/9"], note: "x" } }]);
    } finally {
      await pool.end();
      await fs.rm(before, { recursive: true, force: true });
    }
  });
});
