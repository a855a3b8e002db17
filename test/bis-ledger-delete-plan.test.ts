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
 * ledger row exists); 134 serves the log from the ledger rows themselves, and keeps a deleted
 * signup's logged messages as entries (bis_notification_entries), each found by its ledger row's
 * signup key. The tests assert what the deletes read and write, not a time.
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
  // Sent and logged (the mark's outcome on the row), and as many refusals that claimed nothing.
  await pool.query("update bis_ledger set status = 'sent', sent_at = now(), logged_at = now() where shop_id = $1", [shopId]);
  await pool.query(
    `insert into bis_notification_entries (shop_id, signup_id, variant_id, stage, channel, status, blocked_reason)
     select $1, s.id, 'gid://shopify/ProductVariant/1', 'initial', 'email', 'blocked', 'stage_disabled' from bis_signups s where s.shop_id = $1`,
    [shopId],
  );
  await pool.query("insert into bis_reminder_queue (signup_id, shop_id, initial_sent_at) select signup_id, shop_id, now() from bis_ledger where shop_id = $1", [shopId]);
  await pool.query("analyze bis_ledger");
  await pool.query("analyze bis_notification_entries");
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
        "select seq_scan, idx_scan, n_tup_upd from pg_stat_xact_user_tables where relname = 'bis_notification_entries'",
      );
      await client.query("commit");
      expect(rowCount).toBe(500);
      expect(rows[0]).toMatchObject({ seq_scan: "0", n_tup_upd: "0" });
      expect(Number(rows[0]?.idx_scan ?? 0)).toBe(0);
    } finally {
      client.release();
    }
  });

  it("a deleted signup's logged messages stay in the log as entries, each found by its signup's key", async () => {
    const client = await pool.connect();
    try {
      await client.query("begin");
      const { rows: before } = await client.query<{ id: string }>(
        "select n.id from bis_notifications n where n.ledger_id is not null and n.signup_id in (select id from bis_signups where shop_id = $1 order by id desc limit 300)",
        [shopId],
      );
      // This backend's counters not flushed yet (pg_stat_xact_*) hold the setup's too: the delete's are the difference.
      const counters = async () =>
        (
          await client.query<{ relname: string; seq_scan: number; n_tup_ins: number }>(
            "select relname, seq_scan::int, n_tup_ins::int from pg_stat_xact_user_tables where relname in ('bis_ledger', 'bis_notification_entries') order by relname",
          )
        ).rows;
      const start = await counters();
      const { rows: deleted } = await client.query<{ id: string }>(
        "delete from bis_signups where id in (select id from bis_signups where shop_id = $1 order by id desc limit 300) returning id",
        [shopId],
      );
      const rowCount = deleted.length;
      // Their reminders go with them (no key of the queue's own: sql/135; the signup's delete trigger).
      const { rows: reminders } = await client.query<{ n: number }>("select count(*)::int as n from bis_reminder_queue where signup_id = any($1::uuid[])", [deleted.map((d) => d.id)]);
      expect(reminders).toEqual([{ n: 0 }]);
      const rows = (await counters()).map((r, i) => ({ relname: r.relname, seq_scan: r.seq_scan - (start[i]?.seq_scan ?? 0), n_tup_ins: r.n_tup_ins - (start[i]?.n_tup_ins ?? 0) }));
      const { rows: kept } = await client.query<{ id: string }>(
        "select id from bis_notifications where shop_id = $1 and id = any($2::text[]) and signup_id is null and ledger_id is null and status = 'sent'",
        [shopId, before.map((r) => r.id)],
      );
      await client.query("commit");
      expect(rowCount).toBeGreaterThan(0);
      // Their logged messages (the first test deleted the ledger rows of the lowest ids straight): kept, under the same ids.
      expect(kept.map((r) => r.id).sort()).toEqual(before.map((r) => r.id).sort());
      expect(before.length).toBeGreaterThan(0);
      expect(rows).toEqual([
        { relname: "bis_ledger", seq_scan: 0, n_tup_ins: 0 },
        { relname: "bis_notification_entries", seq_scan: 0, n_tup_ins: before.length },
      ]);
    } finally {
      client.release();
    }
  });

  it("deletes the shop's ledger rows with its signups and the shop (no key of their own to the shop), keeping no entry", async () => {
    await pool.query("delete from shops where id = $1", [shopId]);
    const { rows } = await pool.query<{ ledger: number; queue: number; notifications: number }>(
      `select (select count(*) from bis_ledger where shop_id = $1)::int as ledger,
              (select count(*) from bis_reminder_queue where shop_id = $1)::int as queue,
              (select count(*) from bis_notification_entries where shop_id = $1)::int as notifications`,
      [shopId],
    );
    expect(rows[0]).toEqual({ ledger: 0, queue: 0, notifications: 0 });
  });
});
