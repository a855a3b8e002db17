import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimChunk } from "../src/back_in_stock/alerts/runs.ts";
import { createShop } from "../src/db/api-keys.ts";
import { type TestDatabase, createTestDatabase } from "./helpers/db.ts";

/**
 * A batch's claim writes no signup: the run's keyset cursor passes the claimed signups, which stay
 * `waiting` until their mark (one update per alert fewer). Each chunk takes the next signups of the
 * queue, never one it took before, and a signup whose stage another claim took (the restock
 * burst's first) is passed without ending the run.
 */

let database: TestDatabase;
let pool: pg.Pool;
let shopId: string;
let runId: string;
let signups: string[];
const variant = "gid://shopify/ProductVariant/1";
const e = { channels: ["email"], optInRequired: false };

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  shopId = await createShop(pool, "Cursor Shop");
  const { rows } = await pool.query<{ id: string }>(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
     select $1, $2, 'email', 'cursor-' || i || '@example.com', true, now() - interval '1 day' + make_interval(secs => i) from generate_series(1, 12) i
     returning id`,
    [shopId, variant],
  );
  signups = rows.map((r) => r.id);
  const run = await pool.query<{ id: string }>(
    "insert into bis_alert_runs (shop_id, variant_id, trigger, batch_started_at, batch_quota) values ($1, $2, 'inventory_webhook', now(), 100) returning id",
    [shopId, variant],
  );
  runId = run.rows[0]?.id ?? "";
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

async function claim(limit: number): Promise<{ ids: string[]; picked: number; signupsUpdated: number }> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const claimed = await claimChunk(client, runId, shopId, variant, limit, e);
    const { rows } = await client.query<{ n: string }>("select n_tup_upd as n from pg_stat_xact_user_tables where relname = 'bis_signups'");
    await client.query("commit");
    return { ...claimed, signupsUpdated: Number(rows[0]?.n ?? 0) };
  } finally {
    client.release();
  }
}

const claimedSignups = async (ids: string[]) =>
  (await pool.query<{ signup_id: string }>("select signup_id from bis_ledger where id = any($1::uuid[]) order by signup_id", [ids])).rows.map((r) => r.signup_id);

describe("a run's claims", () => {
  it("write no signup, and each chunk takes the next ones of the queue", async () => {
    const first = await claim(4);
    expect(first.signupsUpdated).toBe(0);
    expect(await claimedSignups(first.ids)).toEqual([...signups.slice(0, 4)].sort());
    const { rows } = await pool.query<{ status: string }>("select distinct status from bis_signups where id = any($1::uuid[])", [signups.slice(0, 4)]);
    expect(rows).toEqual([{ status: "waiting" }]);

    const second = await claim(4);
    expect(await claimedSignups(second.ids)).toEqual([...signups.slice(4, 8)].sort());
  });

  it("pass a signup whose stage was claimed already, and go on after it", async () => {
    // The next one in the queue is claimed by someone else (as the restock burst claims a variant's first).
    await pool.query("insert into bis_ledger (shop_id, signup_id, stage) values ($1, $2, 'initial')", [shopId, signups[8]]);
    const third = await claim(1);
    expect(third).toMatchObject({ ids: [], picked: 1 });
    const fourth = await claim(10);
    expect(await claimedSignups(fourth.ids)).toEqual([...signups.slice(9)].sort());
    expect((await claim(10)).picked).toBe(0);
  });
});
