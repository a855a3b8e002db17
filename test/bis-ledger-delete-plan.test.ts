import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimStage } from "../src/back_in_stock/alerts/ledger.ts";
import { createShop } from "../src/db/api-keys.ts";
import { type TestDatabase, createTestDatabase } from "./helpers/db.ts";

/**
 * Deleting ledger rows (a signup deleted, a shop deleted) must be linear in what it deletes. The
 * notifications log's ledger_id had a key with `on delete set null` and no index: every deleted
 * ledger row read the whole notifications table (20,000 alerts' rows took 2.5 minutes). Migration
 * 130 indexed it; 133 dropped the key (the log keeps the id; the API shows it only while the
 * ledger row exists). The test asserts what the delete reads and writes, not a time.
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
  it("reads and writes nothing of the notifications log", async () => {
    const client = await pool.connect();
    try {
      await client.query("begin");
      const { rowCount } = await client.query("delete from bis_ledger where id in (select id from bis_ledger where shop_id = $1 limit 500)", [shopId]);
      const { rows } = await client.query<{ seq_scan: string; idx_scan: string | null; n_tup_upd: string }>(
        "select seq_scan, idx_scan, n_tup_upd from pg_stat_xact_user_tables where relname = 'bis_notifications'",
      );
      await client.query("commit");
      expect(rowCount).toBe(500);
      expect(rows[0]).toMatchObject({ seq_scan: "0", n_tup_upd: "0" });
      expect(Number(rows[0]?.idx_scan ?? 0)).toBe(0);
    } finally {
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
