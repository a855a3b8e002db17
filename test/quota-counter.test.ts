import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { monthPeriod, periodKey, planUsage, recountAllReserved, setPlan } from "../src/account/plans.ts";
import { leaseAlerts, markAlertResults } from "../src/back_in_stock/alerts/ledger.ts";
import { claimChunk } from "../src/back_in_stock/alerts/runs.ts";
import { withTransaction } from "../src/core/db.ts";
import { createShop } from "../src/db/api-keys.ts";
import { leaseHolder } from "../src/messaging/ledger/lease.ts";
import { type TestDatabase, createTestDatabase } from "./helpers/db.ts";

/**
 * The plan's quota as counters (src/account/plans.ts): a batch's claim reserves its chunk under
 * the shop's quota lock, the mark moves a message from `reserved` to `sent`, and the recovery
 * sweep recounts `reserved` from the pending rows.
 */

let database: TestDatabase;
let pool: pg.Pool;
const period = periodKey(monthPeriod());
const e = { channels: ["email"], optInRequired: false };

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 6 });
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** A shop on a quota of `limit`, with `perVariant` waiting signups on each of the variants, and a run with an open batch per variant. */
async function shopWithRuns(limit: number, variants: string[], perVariant: number): Promise<{ shopId: string; runs: string[] }> {
  const shopId = await createShop(pool, "Quota Counter Shop");
  await setPlan(pool, shopId, "free", limit);
  const runs: string[] = [];
  for (const variant of variants) {
    await pool.query(
      `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
       select $1, $2, 'email', $2 || '-' || i || '@example.com', true, now() - interval '1 day' + make_interval(secs => i) from generate_series(1, $3::int) i`,
      [shopId, variant, perVariant],
    );
    const { rows } = await pool.query<{ id: string }>(
      "insert into bis_alert_runs (shop_id, variant_id, trigger, batch_started_at, batch_quota) values ($1, $2, 'inventory_webhook', now(), 100) returning id",
      [shopId, variant],
    );
    runs.push(rows[0]?.id ?? "");
  }
  return { shopId, runs };
}

async function counters(shopId: string): Promise<{ sent: number; reserved: number; held: number }> {
  const { rows } = await pool.query<{ sent: number; reserved: number; held: number }>(
    `select (select coalesce(sum(sent), 0) from account_send_usage where shop_id = $1)::int as sent,
            (select coalesce(sum(reserved), 0) from account_send_usage where shop_id = $1)::int as reserved,
            (select count(*) from bis_ledger where shop_id = $1 and status = 'pending' and quota_period is not null)::int as held`,
    [shopId],
  );
  return rows[0] ?? { sent: 0, reserved: 0, held: 0 };
}

describe("the quota counters", () => {
  it("concurrent claims of one shop never reserve more than the quota", async () => {
    const variants = ["gid://shopify/ProductVariant/1", "gid://shopify/ProductVariant/2", "gid://shopify/ProductVariant/3", "gid://shopify/ProductVariant/4"];
    const { shopId, runs } = await shopWithRuns(5, variants, 4);
    const claims = await Promise.all(
      variants.map((variant, i) => withTransaction(pool, (db) => claimChunk(db, runs[i] ?? "", shopId, variant, 4, e))),
    );
    // Every chunk is claimed (the ones over the quota are refused at send), five of them reserved.
    expect(claims.reduce((n, c) => n + c.ids.length, 0)).toBe(16);
    expect(await counters(shopId)).toEqual({ sent: 0, reserved: 5, held: 5 });
    const usage = await planUsage(pool, shopId);
    expect(usage).toMatchObject({ alerts_sent: 0, in_flight: 5, remaining: 0 });
  });

  it("the mark moves a message from reserved to sent, and a failure frees its reservation", async () => {
    const variant = "gid://shopify/ProductVariant/10";
    const { shopId, runs } = await shopWithRuns(10, [variant], 3);
    const client = await pool.connect();
    try {
      const holder = await leaseHolder(client);
      const { ids } = await withTransaction(pool, (db) => claimChunk(db, runs[0] ?? "", shopId, variant, 3, e, holder));
      const rows = await leaseAlerts(pool, ids, holder);
      expect(rows.map((r) => r.quota_period)).toEqual([period, period, period]);
      const [a, b, c] = rows;
      if (!a || !b || !c) throw new Error("three rows leased");
      await markAlertResults(pool, [
        { row: a, outcome: "sent", attempted: true, provider_message_id: "<a@example.com>" },
        { row: b, outcome: "failed", attempted: true, error: "mailbox full" },
        { row: c, outcome: "retry", attempted: true, error: "try later" },
      ]);
      // The retry keeps its reservation; the others left theirs.
      expect(await counters(shopId)).toEqual({ sent: 1, reserved: 1, held: 1 });
    } finally {
      client.release();
    }
  });

  it("the recovery sweep recounts reserved from the pending rows (a row deleted while pending left its count)", async () => {
    const variant = "gid://shopify/ProductVariant/20";
    const { shopId, runs } = await shopWithRuns(10, [variant], 4);
    const { ids } = await withTransaction(pool, (db) => claimChunk(db, runs[0] ?? "", shopId, variant, 4, e));
    expect(await counters(shopId)).toEqual({ sent: 0, reserved: 4, held: 4 });
    await pool.query("delete from bis_signups where id in (select signup_id from bis_ledger where id = any($1::uuid[]))", [ids.slice(0, 3)]);
    expect(await counters(shopId)).toEqual({ sent: 0, reserved: 4, held: 1 });
    expect(await recountAllReserved(pool)).toBeGreaterThanOrEqual(1);
    expect(await counters(shopId)).toEqual({ sent: 0, reserved: 1, held: 1 });
  });
});
