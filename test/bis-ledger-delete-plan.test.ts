import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimStage } from "../src/back_in_stock/alerts/ledger.ts";
import { createShop } from "../src/db/api-keys.ts";
import { type TestDatabase, createTestDatabase } from "./helpers/db.ts";

/**
 * Deleting ledger rows (a signup deleted, a shop deleted) sets the notifications' ledger_id to
 * null, row by row, with the plan the foreign key's trigger keeps (a generic plan: the ledger id
 * is its parameter). Without an index on bis_notifications.ledger_id every deleted ledger row read
 * the whole notifications table: 20,000 alerts' rows took 2.5 minutes. The test asserts the plan,
 * not a time.
 */

let database: TestDatabase;
let pool: pg.Pool;
let shopId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  shopId = await createShop(pool, "Delete Plan Shop");
  const { rows } = await pool.query<{ id: string }>(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent)
     select $1, 'gid://shopify/ProductVariant/1', 'email', 'delete-' || i || '@example.com', true from generate_series(1, 2000) i
     returning id`,
    [shopId],
  );
  await claimStage(pool, shopId, rows.map((r) => r.id), "initial");
  await pool.query(
    `insert into bis_notifications (shop_id, signup_id, ledger_id, variant_id, stage, channel, status)
     select l.shop_id, l.signup_id, l.id, 'gid://shopify/ProductVariant/1', 'initial', 'email', 'sent' from bis_ledger l where l.shop_id = $1`,
    [shopId],
  );
  await pool.query("analyze bis_notifications");
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe("deleting ledger rows", () => {
  it("finds each one's notifications by an index (the foreign key's set null), not by reading the table", async () => {
    const client = await pool.connect();
    try {
      // The statement the key's trigger runs per deleted ledger row, planned as it plans it.
      await client.query("prepare set_null (uuid) as update only bis_notifications set ledger_id = null where $1 = ledger_id");
      await client.query("set plan_cache_mode = force_generic_plan");
      const { rows: ledger } = await client.query<{ id: string }>("select id from bis_ledger limit 1");
      const { rows } = await client.query<{ "QUERY PLAN": string }>(`explain execute set_null('${ledger[0]?.id ?? ""}')`);
      const plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
      expect(plan).toContain("bis_notifications_ledger");
      expect(plan).not.toContain("Seq Scan");
    } finally {
      await client.query("deallocate all; reset plan_cache_mode");
      client.release();
    }
  });

  it("deletes the shop's ledger rows with its signups and the shop (no key of their own to the shop)", async () => {
    await pool.query("delete from shops where id = $1", [shopId]);
    const { rows } = await pool.query<{ ledger: number; queue: number; notifications: number }>(
      `select (select count(*) from bis_ledger where shop_id = $1)::int as ledger,
              (select count(*) from bis_reminder_queue where shop_id = $1)::int as queue,
              (select count(*) from bis_notifications where shop_id = $1)::int as notifications`,
      [shopId],
    );
    expect(rows[0]).toEqual({ ledger: 0, queue: 0, notifications: 0 });
  });
});
