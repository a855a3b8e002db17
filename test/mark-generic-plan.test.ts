import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AlertRow, claimStage, leaseAlerts, markAlertResults } from "../src/back_in_stock/alerts/ledger.ts";
import { leaseHolder } from "../src/messaging/ledger/lease.ts";
import { createShop } from "../src/db/api-keys.ts";
import { type TestDatabase, createTestDatabase } from "./helpers/db.ts";

/**
 * The back-in-stock mark's statement keeps one plan per connection, not one per call (sql/136, decision
 * 0240). PL/pgSQL plans a statement with each call's values (a custom plan) for five calls, then
 * keeps a generic plan only if its estimated cost is not above theirs; over unnest() of the
 * mark's arrays it never was, so every mark planned its statement again: 3.25 ms a flush of four
 * alerts against 1.44 ms, the larger part of the database's time in bench:alerts.
 *
 * The plan each call runs is read from auto_explain, sent to this connection as a notice: a
 * custom plan has the call's ids in it as constants, the generic plan the function's parameters.
 */

let database: TestDatabase;
let pool: pg.Pool;
let shopId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  shopId = await createShop(pool, "Generic Plan Shop");
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** Runs `call` with auto_explain's nested plans sent to this connection; answers the plans' texts. */
async function nestedPlans(client: pg.PoolClient, call: () => Promise<unknown>): Promise<string[]> {
  const plans: string[] = [];
  const onNotice = (notice: { message?: string }) => {
    if (notice.message?.includes("plan:")) plans.push(notice.message);
  };
  await client.query(
    "load 'auto_explain'; set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; set auto_explain.log_level = notice; set client_min_messages = notice",
  );
  client.on("notice", onNotice);
  try {
    await call();
  } finally {
    client.off("notice", onNotice);
    await client.query("set auto_explain.log_min_duration = -1");
  }
  return plans;
}

const sent = (row: AlertRow) => ({ row, outcome: "sent" as const, attempted: true, provider_message_id: `<${row.id}@example.com>`, subject: "Back" });

describe("the back-in-stock mark's plan", () => {
  it("the back-in-stock mark runs its generic plan from the sixth call on, with no call's ids planned in", async () => {
    const { rows: signups } = await pool.query<{ id: string }>(
      `insert into bis_signups (shop_id, variant_id, channel, contact, consent)
       select $1, 'gid://shopify/ProductVariant/1', 'email', 'plan-' || i || '@example.com', true from generate_series(1, 20000) i returning id`,
      [shopId],
    );
    // A restock's size (bench:alerts): on small tables the generic plan's estimate won even before.
    const ids = (await claimStage(pool, shopId, signups.map((s) => s.id), "initial")).map((r) => r.id).slice(0, 40);
    await pool.query("analyze bis_signups; analyze bis_ledger");
    const client = await pool.connect();
    try {
      const holder = await leaseHolder(client);
      const rows = await leaseAlerts(client, ids, holder);
      for (let call = 0; call < 7; call++) await markAlertResults(client, rows.slice(call * 4, call * 4 + 4).map(sent));
      const batch = rows.slice(28, 32);
      const plans = await nestedPlans(client, () => markAlertResults(client, batch.map(sent)));
      const statement = plans.find((p) => p.includes("Update on bis_ledger"));
      expect(statement, plans.join("\n---\n")).toBeDefined();
      for (const row of batch) expect(statement).not.toContain(row.id);
      expect(statement).toMatch(/\$1\b/);
      const { rows: marked } = await pool.query<{ status: string }>("select status from bis_ledger where id = any($1::uuid[])", [batch.map((r) => r.id)]);
      expect(marked.map((r) => r.status)).toEqual(["sent", "sent", "sent", "sent"]);
    } finally {
      client.release();
    }
  });
});
