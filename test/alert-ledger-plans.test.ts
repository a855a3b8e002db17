import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LEASE_ALERTS, claimStage, markAlertValues } from "../src/back_in_stock/alerts/ledger.ts";
import { createShop } from "../src/db/api-keys.ts";
import { type TestDatabase, createTestDatabase } from "./helpers/db.ts";

/**
 * The send pipeline's per-message statements find their rows by the primary key. During a large
 * restock the partial indexes of pending ledger rows fill with dead entries (rows sent since the
 * last vacuum); the planner, whose statistics say few rows are pending, chose to read those
 * indexes whole: 15,000 entries for a lease of 200 rows, every pending row for a mark of four. A lease takes a chunk (200), a mark a few.
 */

let database: TestDatabase;
let pool: pg.Pool;
let pending: { id: string; signup_id: string; shop_id: string }[];

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  const shopId = await createShop(pool, "Plans Shop");
  await pool.query(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
     select $1, 'gid://shopify/ProductVariant/1', 'email', 'plan-' || i || '@example.com', true, now() - interval '1 day' + make_interval(secs => i)
     from generate_series(1, 3000) i`,
    [shopId],
  );
  const { rows: signups } = await pool.query<{ id: string }>("select id from bis_signups where shop_id = $1", [shopId]);
  await claimStage(pool, shopId, signups.map((s) => s.id), "initial");
  // What the statistics see mid-run: most rows sent, a few pending.
  await pool.query("update bis_ledger set status = 'sent', sent_at = now() where id in (select id from bis_ledger order by id offset 300)");
  await pool.query("analyze bis_ledger");
  await pool.query("analyze bis_signups");
  ({ rows: pending } = await pool.query("select id, signup_id, shop_id from bis_ledger where status = 'pending' limit 200"));
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** The names of the indexes a statement's plan reads (EXPLAIN, not run), under the given planner settings. */
async function indexesRead(text: string, values: unknown[], settings: Record<string, string> = {}): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    for (const [name, value] of Object.entries(settings)) await client.query("select set_config($1, $2, true)", [name, value]);
    const { rows } = await client.query<{ "QUERY PLAN": unknown }>(`explain (format json) ${text}`, values);
    return [...JSON.stringify(rows[0]?.["QUERY PLAN"]).matchAll(/"Index Name":"([^"]+)"/g)].map((m) => m[1] ?? "");
  } finally {
    await client.query("rollback");
    client.release();
  }
}

/**
 * The names of the indexes the plan a connection keeps for the statement reads: its generic plan
 * (PL/pgSQL keeps one from a statement's sixth run), made with no values for the parameters.
 */
async function indexesReadGeneric(text: string, values: unknown[], settings: Record<string, string> = {}): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    for (const [name, value] of Object.entries({ ...settings, plan_cache_mode: "force_generic_plan" })) await client.query("select set_config($1, $2, true)", [name, value]);
    await client.query(`prepare generic_statement as ${text}`);
    // EXECUTE takes its arguments as expressions, not as bound parameters: array literals.
    const element = (v: string | number | boolean | null | undefined) => (v === null || v === undefined ? "NULL" : `"${String(v).replace(/[\\"]/g, (c) => `\\${c}`)}"`);
    const args = values.map((v) => client.escapeLiteral(`{${(v as (string | number | boolean | null)[]).map(element).join(",")}}`)).join(", ");
    const { rows } = await client.query<{ "QUERY PLAN": unknown }>(`explain (format json) execute generic_statement(${args})`);
    return [...JSON.stringify(rows[0]?.["QUERY PLAN"]).matchAll(/"Index Name":"([^"]+)"/g)].map((m) => m[1] ?? "");
  } finally {
    await client.query("rollback");
    await client.query("deallocate all");
    client.release();
  }
}

/** The statement of the mark function (sql/134_notifications_log_from_ledger.sql: one statement in PL/pgSQL) and its settings, as the function plans it. */
async function markFunction(): Promise<{ text: string; settings: Record<string, string> }> {
  const { rows } = await pool.query<{ prosrc: string; proconfig: string[] | null; lanname: string }>(
    "select p.prosrc, p.proconfig, l.lanname from pg_proc p join pg_language l on l.oid = p.prolang where p.proname = 'bis_alert_mark'",
  );
  const row = rows[0];
  expect(row?.lanname).toBe("plpgsql");
  const text = /\bbegin\s+([\s\S]*?);\s*end\s*$/i.exec(row?.prosrc.trim() ?? "")?.[1];
  if (!row || !text) throw new Error("bis_alert_mark: no function");
  return { text, settings: Object.fromEntries((row.proconfig ?? []).map((c) => c.split("=") as [string, string])) };
}

describe("the alert ledger's statements", () => {
  it("a lease reads no index of pending rows", async () => {
    const indexes = await indexesRead(LEASE_ALERTS, [pending.map((r) => r.id), 12345]);
    expect(indexes.filter((name) => name.startsWith("bis_ledger_pending"))).toEqual([]);
  });

  it("a mark reads no index of pending rows", async () => {
    const results = pending.slice(0, 4).map((r) => ({
      row: {
        id: r.id,
        shop_id: r.shop_id,
        signup_id: r.signup_id,
        stage: "initial" as const,
        attempts: 0,
        lease_pid: 12345,
        lease_start: "2026-11-27 10:00:00.123456+00",
        quota_period: "2026-11-01",
        variant_id: "gid://shopify/ProductVariant/1",
        channel: "email" as const,
        contact: "plan@example.com",
        locale: "en",
        consent: true,
        first_name: null,
        signup_status: "pending",
      },
      outcome: "sent" as const,
      attempted: true,
      provider_message_id: `<${r.id}@example.com>`,
      subject: "Back",
    }));
    const mark = await markFunction();
    expect(mark.settings).toEqual({ enable_seqscan: "off", plan_cache_mode: "force_generic_plan" });
    for (const indexes of [await indexesRead(mark.text, markAlertValues(results), mark.settings), await indexesReadGeneric(mark.text, markAlertValues(results), mark.settings)]) {
      expect(indexes.filter((name) => name.startsWith("bis_ledger_pending"))).toEqual([]);
      expect(indexes).toContain("bis_ledger_pkey");
    }
  });
});
