import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leaseAlerts } from "../src/back_in_stock/alerts/ledger.ts";
import { claimChunk } from "../src/back_in_stock/alerts/runs.ts";
import { leaseHolder } from "../src/messaging/ledger/lease.ts";
import { createShop } from "../src/db/api-keys.ts";
import { type TestDatabase, createTestDatabase } from "./helpers/db.ts";

/**
 * A batch's chunk is claimed leased to the batch's connection: the claim's insert writes the
 * lease, and the send's lease then takes those rows with no write of its own (one update per
 * alert fewer). Another sender's lease still finds them held.
 */

let database: TestDatabase;
let pool: pg.Pool;
let holderClient: pg.PoolClient;
let shopId: string;
const variant = "gid://shopify/ProductVariant/1";

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  holderClient = await pool.connect();
  shopId = await createShop(pool, "Claim Lease Shop");
  await pool.query(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
     select $1, $2, 'email', 'lease-' || i || '@example.com', true, now() - interval '1 day' + make_interval(secs => i) from generate_series(1, 30) i`,
    [shopId, variant],
  );
});

afterAll(async () => {
  holderClient?.release();
  await pool?.end();
  await database?.drop();
});

async function run(): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    "insert into bis_alert_runs (shop_id, variant_id, trigger, batch_started_at, batch_quota) values ($1, $2, 'inventory_webhook', now(), 30) returning id",
    [shopId, variant],
  );
  return rows[0]?.id ?? "";
}

describe("a chunk claimed by a batch", () => {
  it("is written leased to the batch's connection, and its send's lease writes nothing", async () => {
    const holder = await leaseHolder(holderClient);
    const { ids } = await claimChunk(pool, await run(), shopId, variant, 10, { channels: ["email"], optInRequired: false }, holder);
    expect(ids).toHaveLength(10);
    const { rows: leases } = await pool.query<{ n: number }>(
      "select count(*)::int as n from bis_ledger l join pg_stat_activity a on a.pid = l.lease_pid and a.backend_start = l.lease_backend_start where l.id = any($1::uuid[]) and l.lease_pid = $2",
      [ids, holder.pid],
    );
    expect(leases[0]?.n).toBe(10);

    const client = await pool.connect();
    try {
      await client.query("begin");
      const leased = await leaseAlerts(client, ids, holder);
      const { rows } = await client.query<{ n_tup_upd: string }>("select n_tup_upd from pg_stat_xact_user_tables where relname = 'bis_ledger'");
      await client.query("commit");
      expect(leased.map((r) => r.id).sort()).toEqual([...ids].sort());
      expect(Number(rows[0]?.n_tup_upd ?? 0)).toBe(0);
    } finally {
      client.release();
    }

    // Another sender finds them held by a live connection.
    const other = await pool.connect();
    try {
      expect(await leaseAlerts(pool, ids, await leaseHolder(other))).toEqual([]);
    } finally {
      other.release();
    }
  });
});
