import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AlertRow, claimStage, leaseAlerts, markAlertResults } from "../src/back_in_stock/alerts/ledger.ts";
import { leaseHolder, releaseLeases } from "../src/messaging/ledger/lease.ts";
import { claimChunk } from "../src/back_in_stock/alerts/runs.ts";
import { monthPeriod, periodKey, reserveSends } from "../src/account/plans.ts";
import { createShop } from "../src/db/api-keys.ts";
import { markPreorderNotifications } from "../src/preorders/notifications/ledger.ts";
import { type TestDatabase, createTestDatabase } from "./helpers/db.ts";

/**
 * A connection keeps the plan of a statement it runs often (a prepared statement's generic plan,
 * chosen at its sixth run). A mark's plan made while the ledger was small (a new shop's first
 * restock, or first bulk release) read the whole ledger at every mark once the run had claimed
 * thousands of rows: in bench:alerts, 466 pages per mark of four messages, half of the database's
 * time, until autovacuum's next analyze. A mark finds its rows by their keys, whatever the
 * ledger's size was when its plan was made. And a chunk's claim, whose limit (the run's quota)
 * the planner cannot know, joined its 200 rows to a read of the whole signups table: 50 ms a chunk
 * at 100,000 signups.
 */

let database: TestDatabase;
let pool: pg.Pool;
let shopId: string;

// A database of its own for each test: each starts from small tables.
beforeEach(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  // No analyze behind the test's back: the plan is made on the small ledger, as in a run's first seconds.
  await pool.query("alter table bis_ledger set (autovacuum_enabled = false)");
  await pool.query("alter table account_send_usage set (autovacuum_enabled = false)");
  await pool.query("alter table preorder_notifications set (autovacuum_enabled = false)");
  shopId = await createShop(pool, "Plan Cache Shop");
});

afterEach(async () => {
  await pool?.end();
  await database?.drop();
});

async function claimSignups(count: number, prefix: string): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent)
     select $1, 'gid://shopify/ProductVariant/1', 'email', $2 || i || '@example.com', true from generate_series(1, $3::int) i
     returning id`,
    [shopId, prefix, count],
  );
  return (await claimStage(pool, shopId, rows.map((r) => r.id), "initial")).map((r) => r.id);
}

/** The pending rows, leased to the pool's one connection and their sends reserved (as a sender does). */
async function leased(ids: readonly string[]): Promise<AlertRow[]> {
  const rows = await leaseAlerts(pool, ids, await leaseHolder(pool));
  const reserved = await reserveSends(pool, shopId, ids);
  if (reserved.size !== ids.length) throw new Error(`the plan reserved ${reserved.size} of ${ids.length} sends`);
  // As the sender's admission does: the rows carry the month that holds them.
  return rows.map((row) => ({ ...row, quota_period: periodKey(monthPeriod()) }));
}

/** The sequential scans of the tables in the current transaction. */
async function seqScans(client: pg.ClientBase, tables: readonly string[]): Promise<[string, number][]> {
  const { rows } = await client.query<{ relname: string; seq_scan: string }>(
    "select relname, seq_scan from pg_stat_xact_user_tables where relname = any($1::text[]) order by relname",
    [tables],
  );
  return rows.map((s) => [s.relname, Number(s.seq_scan)]);
}

const sent = (row: AlertRow) => ({ row, outcome: "sent" as const, attempted: true, provider_message_id: `<${row.id}@example.com>`, subject: "Back" });

describe("the send pipeline's statements, after the ledger grew under a connection's plans", () => {
  it("finds the back-in-stock rows by their keys after the ledger grew under it", async () => {
    const first = await claimSignups(12, "small-");
    await pool.query("analyze bis_ledger");
    // Enough marks on the one connection for its plan to be kept.
    for (const id of first.slice(0, 8)) await markAlertResults(pool, (await leased([id])).map(sent));

    const grown = await claimSignups(20_000, "grown-");
    const rows = await leased(grown.slice(0, 4));
    expect(rows).toHaveLength(4);
    const client = await pool.connect();
    try {
      await client.query("begin");
      await markAlertResults(client, rows.map(sent));
      const scans = await seqScans(client, ["bis_ledger", "bis_signups"]);
      await client.query("commit");
      expect(scans).toEqual([
        ["bis_ledger", 0],
        ["bis_signups", 0],
      ]);
    } finally {
      client.release();
    }
    const { rows: marked } = await pool.query<{ status: string }>("select status from bis_ledger where id = any($1::uuid[])", [rows.map((r) => r.id)]);
    expect(marked.map((r) => r.status)).toEqual(["sent", "sent", "sent", "sent"]);
  });

  it("finds the preorder notifications by their keys after the ledger grew under it", async () => {
    const { rows: orders } = await pool.query<{ id: string }>(
      `insert into preorder_orders (shop_id, platform_order_id, name, email, currency, total_price, total_outstanding, platform_created_at, platform_updated_at)
       values ($1, 'gid://shopify/Order/1', '#1001', 'plan@example.com', 'EUR', 10, 0, now(), now()) returning id`,
      [shopId],
    );
    const notify = async (count: number, prefix: string): Promise<string[]> => {
      const { rows } = await pool.query<{ id: string }>(
        `insert into preorder_notifications (shop_id, order_id, stage, event_key, channel, recipient, locale)
         select $1, $2, 'shipping_date_change', $3 || i, 'email', 'plan@example.com', 'en' from generate_series(1, $4::int) i returning id`,
        [shopId, orders[0]?.id, prefix, count],
      );
      return rows.map((r) => r.id);
    };
    const markSent = (db: pg.ClientBase | pg.Pool, ids: readonly string[]) =>
      markPreorderNotifications(db, ids.map((id) => ({ row: { id }, outcome: "sent", attempted: true, provider_message_id: `preorder-${id}` })));

    const first = await notify(12, "small-");
    await pool.query("analyze preorder_notifications");
    for (const id of first.slice(0, 8)) await markSent(pool, [id]);

    const grown = await notify(20_000, "grown-");
    const client = await pool.connect();
    try {
      await client.query("begin");
      await markSent(client, grown.slice(0, 4));
      const scans = await seqScans(client, ["preorder_notifications"]);
      await client.query("commit");
      expect(scans).toEqual([["preorder_notifications", 0]]);
    } finally {
      client.release();
    }
    const { rows: marked } = await pool.query<{ status: string }>("select status from preorder_notifications where id = any($1::uuid[])", [grown.slice(0, 4)]);
    expect(marked.map((r) => r.status)).toEqual(["sent", "sent", "sent", "sent"]);
  });

  it("leases back-in-stock rows by their keys after the ledger grew under it", async () => {
    const holder = await leaseHolder(pool);
    const lease = (db: pg.ClientBase | pg.Pool, ids: readonly string[]) => leaseAlerts(db, ids, holder);
    const first = await claimSignups(12, "lease-small-");
    await pool.query("analyze bis_ledger");
    for (const id of first.slice(0, 8)) {
      await lease(pool, [id]);
      await releaseLeases(pool, "bis_ledger", [id], holder);
    }

    const grown = await claimSignups(20_000, "lease-grown-");
    const client = await pool.connect();
    try {
      await client.query("begin");
      const leased = await lease(client, grown.slice(0, 200));
      const scans = await seqScans(client, ["bis_ledger"]);
      await client.query("commit");
      expect(leased).toHaveLength(200);
      expect(scans).toEqual([["bis_ledger", 0]]);
    } finally {
      client.release();
    }
  });

  it("claims a chunk of a large queue without reading the whole signups table", async () => {
    // A restock of one variant with 20,000 waiting signups, as bench:alerts seeds it (analyzed).
    await pool.query(
      `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
       select $1, 'gid://shopify/ProductVariant/1', 'email', 'queue-' || i || '@example.com', true, now() - interval '1 day' + make_interval(secs => i)
       from generate_series(1, 20000) i`,
      [shopId],
    );
    await pool.query("analyze bis_signups");
    const { rows: runs } = await pool.query<{ id: string }>(
      `insert into bis_alert_runs (shop_id, variant_id, trigger, batch_started_at, batch_quota) values ($1, 'gid://shopify/ProductVariant/1', 'inventory_webhook', now(), 20000) returning id`,
      [shopId],
    );
    const client = await pool.connect();
    try {
      await client.query("begin");
      const claimed = await claimChunk(client, runs[0]?.id ?? "", shopId, "gid://shopify/ProductVariant/1", 200, { channels: ["email", "sms"], optInRequired: false });
      const scans = await seqScans(client, ["bis_signups"]);
      await client.query("commit");
      expect(claimed.ids).toHaveLength(200);
      expect(scans).toEqual([["bis_signups", 0]]);
    } finally {
      client.release();
    }
  });
});
