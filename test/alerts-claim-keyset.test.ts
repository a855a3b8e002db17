import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimChunk } from "../src/back_in_stock/alerts/runs.ts";
import { createShop } from "../src/db/api-keys.ts";
import { type TestDatabase, createTestDatabase } from "./helpers/db.ts";

/**
 * A run passes its queue by a keyset cursor: a claimed signup stays `waiting` until its mark, so
 * the next chunk must start after the cursor. Written as "cursor is null or (created_at, id) >
 * cursor", the condition could not bound the index scan: each chunk read the queue from its
 * start, every signup claimed before it again (and the marked ones' dead entries), a cost that
 * grew with the run (quadratic over a restock of 100,000 signups).
 */

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** Signups fetched by index scans so far in the connection's transaction. */
async function signupsFetched(client: pg.ClientBase): Promise<number> {
  const { rows } = await client.query<{ n: string }>("select idx_tup_fetch as n from pg_stat_xact_user_tables where relname = 'bis_signups'");
  return Number(rows[0]?.n ?? 0);
}

const VARIANT = "gid://shopify/ProductVariant/1";
const e = { channels: ["email", "sms"], optInRequired: false };

describe("a run's chunk claim", () => {
  it("reads the queue from its cursor on: the tenth chunk fetches about as many signups as the first", async () => {
    const shopId = await createShop(pool, "Claim Keyset Shop");
    await pool.query(
      `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
       select $1, $2, 'email', 'keyset-' || i || '@example.com', true, now() - interval '1 day' + make_interval(secs => i)
       from generate_series(1, 2400) i`,
      [shopId, VARIANT],
    );
    await pool.query("analyze bis_signups");
    const { rows: runs } = await pool.query<{ id: string }>(
      "insert into bis_alert_runs (shop_id, variant_id, trigger, batch_started_at, batch_quota) values ($1, $2, 'inventory_webhook', now(), 2400) returning id",
      [shopId, VARIANT],
    );
    const runId = runs[0]?.id ?? "";
    const client = await pool.connect();
    const fetched: number[] = [];
    const claimed: string[] = [];
    try {
      for (let chunk = 0; chunk < 10; chunk++) {
        // Both reads in the claim's transaction: a backend's counters are flushed between transactions.
        await client.query("begin");
        const before = await signupsFetched(client);
        const { ids } = await claimChunk(client, runId, shopId, VARIANT, 200, e);
        fetched.push((await signupsFetched(client)) - before);
        await client.query("commit");
        claimed.push(...ids);
      }
    } finally {
      client.release();
    }
    // Every chunk a new 200 (the claimed ones still waiting, unmarked).
    expect(claimed).toHaveLength(2000);
    expect(new Set(claimed).size).toBe(2000);
    // Signups fetched by index per chunk: the chunk's own (picked, then checked by the ledger's
    // foreign key), the same at the tenth chunk as at the first; not the 1,800 claimed before it again.
    expect(fetched[0]).toBeGreaterThanOrEqual(200);
    expect(fetched).toEqual(fetched.map(() => fetched[0]));
  });
});
