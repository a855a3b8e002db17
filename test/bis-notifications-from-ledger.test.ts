import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { claimStage, leaseAlerts, markAlertResults, reclaimFailed } from "../src/back_in_stock/alerts/ledger.ts";
import { createShop } from "../src/db/api-keys.ts";
import { migrate, readMigrations } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { leaseHolder } from "../src/messaging/ledger/lease.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/**
 * The notifications log served from the ledger row (sql/134, decision 0233): a message's final
 * outcome is its bis_ledger row, so the mark writes no second row per message; the log lists each
 * message once, under its message id, with its latest outcome.
 */

const env = useTestEnv({ shop: "Ledger log shop" });

interface LogPage {
  notifications: { id: string; message_id: string | null; status: string; error: string | null; blocked_reason: string | null; recipient: string | null }[];
  total: number;
}

async function signups(shopId: string, contacts: string[]): Promise<string[]> {
  const { rows } = await env.app.pool.query<{ id: string }>(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
     select $1, 'gid://shopify/ProductVariant/9001', 'email', c, true, now() + make_interval(secs => o::int) from unnest($2::text[]) with ordinality as t(c, o)
     returning id`,
    [shopId, contacts],
  );
  return rows.map((r) => r.id);
}

/** Rows written per table by `run`, from this backend's counters (pg_stat_xact_*: the difference, so earlier unflushed counts do not count). */
async function writes(client: pg.PoolClient, run: () => Promise<void>): Promise<Record<string, number>> {
  const read = async () =>
    new Map(
      (
        await client.query<{ relname: string; n: number }>(
          "select relname, (n_tup_ins + n_tup_upd + n_tup_del)::int as n from pg_stat_xact_user_tables where relname in ('bis_ledger', 'bis_notification_entries', 'bis_signups')",
        )
      ).rows.map((r) => [r.relname, r.n]),
    );
  await client.query("begin");
  try {
    const before = await read();
    await run();
    const after = await read();
    await client.query("commit");
    return Object.fromEntries([...after].map(([name, n]) => [name, n - (before.get(name) ?? 0)]));
  } catch (error) {
    await client.query("rollback");
    throw error;
  }
}

describe("the notifications log from the ledger", () => {
  it("a mark writes the ledger row and the signup, and no log row; the log lists each message once under its id", async () => {
    const pool = env.app.pool;
    const ids = await signups(env.shopId, ["a@example.com", "b@example.com", "c@example.com", "d@example.com"]);
    const claimed = await claimStage(pool, env.shopId, ids, "initial");
    const client = await pool.connect();
    try {
      const holder = await leaseHolder(client);
      const rows = await leaseAlerts(pool, claimed.map((c) => c.id), holder);
      const [a, b, c, d] = rows;
      if (!a || !b || !c || !d) throw new Error("four rows leased");
      const written = await writes(client, () =>
        markAlertResults(client, [
          { row: a, outcome: "sent", attempted: true, provider_message_id: "<a@mail>", subject: "Back: Linen" },
          { row: b, outcome: "failed", attempted: true, error: "550 mailbox unknown" },
          { row: c, outcome: "blocked", attempted: false, blocked_reason: "unsubscribed" },
          { row: d, outcome: "retry", attempted: true, error: "451 try later" },
        ]),
      );
      // One ledger row and one signup per message (the retry too: pending with its error); no log row.
      expect(written).toEqual({ bis_ledger: 4, bis_signups: 4, bis_notification_entries: 0 });

      // Each message once, with its current status: the retry too, pending with its error (decision 0249).
      const page = (await invoke(env.app, "GET", "/back_in_stock/notifications?variant_id=9001", { key: env.key })).body as LogPage;
      expect(page.total).toBe(4);
      expect(page.notifications.map((n) => [n.id, n.message_id, n.status, n.error, n.blocked_reason, n.recipient]).sort()).toEqual(
        [
          [a.id, a.id, "sent", null, null, "a@example.com"],
          [b.id, b.id, "failed", "550 mailbox unknown", null, "b@example.com"],
          [c.id, c.id, "blocked", null, "unsubscribed", "c@example.com"],
          [d.id, d.id, "pending", "451 try later", null, "d@example.com"],
        ].sort(),
      );
      const one = await invoke(env.app, "GET", `/back_in_stock/notifications/${a.id}`, { key: env.key });
      expect(one).toMatchObject({ status: 200, body: { id: a.id, message_id: a.id, subject: "Back: Linen", attempts: 1, status: "sent" } });
      expect((await invoke(env.app, "GET", `/back_in_stock/notifications/${a.id.toUpperCase()}`, { key: env.key })).status).toBe(200);

      // The failed one resent and sent: still one entry, under the same id, now sent.
      const [again] = await reclaimFailed(pool, env.shopId, [b.signup_id], "initial");
      expect(again?.id).toBe(b.id);
      // While it is sent again: the same one entry, pending with the failure's reason.
      const resending = (await invoke(env.app, "GET", "/back_in_stock/notifications?variant_id=9001", { key: env.key })).body as LogPage;
      expect(resending.total).toBe(4);
      expect(resending.notifications.filter((n) => n.id === b.id)).toEqual([expect.objectContaining({ status: "pending", error: "550 mailbox unknown" })]);
      const [resent] = await leaseAlerts(pool, [b.id], holder);
      if (!resent) throw new Error("resent row leased");
      await markAlertResults(pool, [{ row: resent, outcome: "sent", attempted: true, provider_message_id: "<b2@mail>" }]);
      const after = (await invoke(env.app, "GET", "/back_in_stock/notifications?variant_id=9001", { key: env.key })).body as LogPage;
      expect(after.total).toBe(4);
      expect(after.notifications.filter((n) => n.id === b.id)).toEqual([expect.objectContaining({ status: "sent", error: null })]);
    } finally {
      client.release();
    }
  });

  it("pages the log across messages and refusals that claimed none, by their ids, each once", async () => {
    const pool = env.app.pool;
    const ids = await signups(env.shopId, ["p1@example.com", "p2@example.com", "p3@example.com"]);
    const claimed = await claimStage(pool, env.shopId, ids, "reminder");
    await pool.query("update bis_ledger set status = 'sent', sent_at = now(), logged_at = timestamptz '2030-01-01T00:00:00Z' where id = any($1::uuid[])", [claimed.map((c) => c.id)]);
    await pool.query(
      `insert into bis_notification_entries (shop_id, signup_id, variant_id, stage, channel, status, blocked_reason, created_at)
       values ($1, $2, 'gid://shopify/ProductVariant/9001', 'reminder', 'email', 'blocked', 'out_of_stock', timestamptz '2030-01-01T00:00:00Z')`,
      [env.shopId, ids[0]],
    );
    const seen: string[] = [];
    let cursor: string | null | undefined;
    for (let i = 0; i < 10; i++) {
      const answer = await invoke(env.app, "GET", `/back_in_stock/notifications?stage=reminder&per_page=1${cursor ? `&cursor=${cursor}` : ""}`, { key: env.key });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const body = answer.body as LogPage & { next_cursor: string | null };
      seen.push(...body.notifications.map((n) => n.id));
      cursor = body.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(4);
    expect(new Set(seen).size).toBe(4);
    expect(seen.filter((id) => /^\d+$/.test(id))).toHaveLength(1);
    const refusal = seen.find((id) => /^\d+$/.test(id));
    expect((await invoke(env.app, "GET", `/back_in_stock/notifications/${String(refusal)}`, { key: env.key })).body).toMatchObject({ status: "blocked", message_id: null });
  });
});

/** The migrations before `id`, in a folder of their own: a database as an earlier version left it. */
async function migrationsBefore(id: number): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "migrations-before-"));
  for (const migration of await readMigrations()) {
    if (migration.id < id) await fs.writeFile(path.join(dir, migration.name), migration.sql);
  }
  return dir;
}

describe("migration 134", () => {
  const empty = useTestEnv({ database: "empty", app: false, shop: false });

  it("moves each message's latest logged outcome onto its ledger row and keeps the entries with no message", async () => {
    const pool = new pg.Pool({ connectionString: empty.db.url, max: 2 });
    const log = createLogger("silent");
    const before = await migrationsBefore(134);
    try {
      await migrate(pool, log, before);
      const shopId = await createShop(pool, "Old log shop");
      const { rows: signup } = await pool.query<{ id: string }>(
        "insert into bis_signups (shop_id, variant_id, channel, contact) values ($1, 'gid://shopify/ProductVariant/5', 'email', 'old@example.com') returning id",
        [shopId],
      );
      const signupId = signup[0]?.id;
      const { rows: ledger } = await pool.query<{ id: string }>(
        "insert into bis_ledger (shop_id, signup_id, stage, status, attempts, sent_at) values ($1, $2, 'initial', 'sent', 2, now()) returning id",
        [shopId, signupId],
      );
      const ledgerId = ledger[0]?.id;
      const gone = "00000000-0000-4000-8000-000000000134";
      const { rows: entries } = await pool.query<{ id: string }>(
        `insert into bis_notifications (shop_id, signup_id, ledger_id, variant_id, stage, channel, status, error, subject, created_at) values
           ($1, $2, $3, 'gid://shopify/ProductVariant/5', 'initial', 'email', 'failed', 'SMTP 451', 'Back', '2026-01-01T00:00:00Z'),
           ($1, $2, $3, 'gid://shopify/ProductVariant/5', 'initial', 'email', 'sent', null, 'Back again', '2026-01-02T00:00:00Z'),
           ($1, $2, null, 'gid://shopify/ProductVariant/5', 'reminder', 'email', 'blocked', null, null, '2026-01-03T00:00:00Z'),
           ($1, null, $4, 'gid://shopify/ProductVariant/5', 'initial', 'email', 'sent', null, null, '2026-01-04T00:00:00Z')
         returning id::text`,
        [shopId, signupId, ledgerId, gone],
      );

      await migrate(pool, log);
      const { rows } = await pool.query<{ id: string; status: string; subject: string | null; created_at: Date; ledger_id: string | null }>(
        "select id, status, subject, created_at, ledger_id from bis_notifications where shop_id = $1 order by created_at",
        [shopId],
      );
      expect(rows).toEqual([
        { id: ledgerId, status: "sent", subject: "Back again", created_at: new Date("2026-01-02T00:00:00Z"), ledger_id: ledgerId },
        { id: entries[2]?.id, status: "blocked", subject: null, created_at: new Date("2026-01-03T00:00:00Z"), ledger_id: null },
        // A deleted signup's message: kept under its message id, without a message id to show.
        { id: gone, status: "sent", subject: null, created_at: new Date("2026-01-04T00:00:00Z"), ledger_id: null },
      ]);
      const { rows: left } = await pool.query<{ n: number }>("select count(*)::int as n from bis_notification_entries where shop_id = $1", [shopId]);
      expect(left).toEqual([{ n: 2 }]);
    } finally {
      await pool.end();
      await fs.rm(before, { recursive: true, force: true });
    }
  });
});
