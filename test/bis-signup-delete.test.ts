import { beforeAll, describe, expect, it } from "vitest";
import { alertRunKey, requestAlertRun } from "../src/back_in_stock/alerts/runs.ts";
import { runNextBatchNow } from "./helpers/alert-runs.ts";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({ shop: "Delete shop", smtp: true, dataDir: true, worker: { pollInterval: 50 } });

let other: { shopId: string; apiKey: string };

/** Signups of a variant, each a second older than the next (the first is the oldest). */
async function addSignups(shopId: string, variant: number, contacts: string[], status = "waiting"): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, contact] of contacts.entries()) {
    const { rows } = await env.app.pool.query<{ id: string }>(
      `insert into bis_signups (shop_id, variant_id, product_id, channel, contact, consent, status, created_at)
       values ($1, $2, 'gid://shopify/Product/80', 'email', $3, true, $4, now() - interval '1 day' + make_interval(secs => $5)) returning id`,
      [shopId, variantGid(variant), contact, status, i],
    );
    ids.push(rows[0]?.id ?? "");
  }
  return ids;
}

async function count(sql: string, values: unknown[]): Promise<number> {
  const { rows } = await env.app.pool.query<{ n: number }>(`select count(*)::int as n from (${sql}) t`, values);
  return rows[0]?.n ?? 0;
}

beforeAll(async () => {
  other = await createShopWithKey(env.app.pool, "Other delete shop");
  await seedVariants(env.app.pool, env.shopId, [
    { n: 801, product: 80, available: 0 },
    { n: 802, product: 80, available: 0 },
  ]);
});

describe("DELETE /back_in_stock/signups/{id}", () => {
  it("deletes the signup: 202 with its last state; then 404 everywhere, its log entries kept without it", async () => {
    const [id] = await addSignups(env.shopId, 801, ["gone@example.com"]);
    await env.app.pool.query(
      `insert into bis_notification_entries (shop_id, signup_id, variant_id, stage, channel, status, blocked_reason) values ($1, $2, $3, 'initial', 'email', 'blocked', 'stage_disabled')`,
      [env.shopId, id, variantGid(801)],
    );
    const before = await invoke(env.app, "GET", `/back_in_stock/signups/${id}`, { key: env.key });
    expect(before.status).toBe(200);
    const answer = await invoke(env.app, "DELETE", `/back_in_stock/signups/${id}`, { key: env.key });
    expect(answer.status).toBe(202);
    const body = answer.body as { id: string; deleted_at: string; signup: Record<string, unknown> };
    expect(body.id).toBe(id);
    // The signup exactly as GET showed it, its provider sync included.
    expect(body.signup).toEqual(before.body);
    expect(Math.abs(Date.parse(body.deleted_at) - Date.now())).toBeLessThan(60_000);

    expect(await count("select 1 from bis_signups where id = $1", [id])).toBe(0);
    for (const [method, path] of [
      ["GET", `/back_in_stock/signups/${id}`],
      ["DELETE", `/back_in_stock/signups/${id}`],
      ["POST", `/back_in_stock/signups/${id}/notify`],
    ] as const) {
      const gone = await invoke(env.app, method, path, { key: env.key });
      expect(gone).toMatchObject({ status: 404, body: { errors: [`Back-in-stock signup not found: ${id}`] } });
    }
    const log = await invoke(env.app, "GET", `/back_in_stock/notifications?variant_id=801`, { key: env.key });
    expect((log.body as { notifications: unknown[] }).notifications).toEqual([
      expect.objectContaining({ signup_id: null, recipient: null, status: "blocked", blocked_reason: "stage_disabled" }),
    ]);
  });

  it("answers 404 for an unknown, malformed or another shop's id, and leaves that shop's signup alone", async () => {
    const [foreign] = await addSignups(other.shopId, 801, ["neighbour@example.com"]);
    for (const id of [foreign ?? "", "00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const answer = await invoke(env.app, "DELETE", `/back_in_stock/signups/${id}`, { key: env.key });
      expect(answer).toMatchObject({ status: 404, body: { errors: [`Back-in-stock signup not found: ${id}`] } });
    }
    expect(await count("select 1 from bis_signups where id = $1", [foreign])).toBe(1);
  });

  it("refuses a parameter (a DELETE takes its input from the query string)", async () => {
    const [id] = await addSignups(env.shopId, 802, ["body@example.com"]);
    const answer = await invoke(env.app, "DELETE", `/back_in_stock/signups/${id}?force=true`, { key: env.key });
    expect(answer).toMatchObject({ status: 422, body: { errors: ["force is not allowed"] } });
    expect(await count("select 1 from bis_signups where id = $1", [id])).toBe(1);
  });

  it("waits for a send under way (its ledger row locked until marked) instead of deadlocking with it", async () => {
    const [id] = await addSignups(env.shopId, 802, ["inflight@example.com"]);
    const { rows } = await env.app.pool.query<{ id: string }>(
      "insert into bis_ledger (shop_id, signup_id, stage) values ($1, $2, 'initial') returning id",
      [env.shopId, id],
    );
    const ledgerId = rows[0]?.id;
    // A sender as sendLedgerRows runs one: the row locked from before the send until the mark commits.
    const sender = await env.app.pool.connect();
    try {
      await sender.query("begin");
      await sender.query("select id from bis_ledger where id = $1 for update", [ledgerId]);
      const deleting = invoke(env.app, "DELETE", `/back_in_stock/signups/${id}`, { key: env.key });
      await waitFor("the delete to wait for the send", async () => {
        const { rows: waiting } = await env.app.pool.query(
          "select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%bis_%'",
        );
        return waiting.length > 0 ? true : undefined;
      });
      // The mark: the ledger row's outcome is its log entry (sql/134).
      await sender.query("update bis_ledger set status = 'sent', sent_at = now(), logged_at = now(), subject = 'Back' where id = $1", [ledgerId]);
      await sender.query("commit");
      const answer = await deleting;
      expect(answer.status).toBe(202);
    } finally {
      sender.release();
    }
    expect(await count("select 1 from bis_ledger where id = $1", [ledgerId])).toBe(0);
    // The log keeps its entry, without the signup, under the same id (the message's); no message id (the message is gone).
    expect(
      await count("select 1 from bis_notifications where id = $2 and ledger_id is null and signup_id is null and variant_id = $1 and status = 'sent' and subject = 'Back'", [
        variantGid(802),
        ledgerId,
      ]),
    ).toBe(1);
  });

  it("a signup deleted while an alert run is under way is skipped by its next batch, and its reminder never goes out", async () => {
    const shop = await createShopWithKey(env.app.pool, "Run delete shop");
    const settings = await invoke(env.app, "PATCH", "/back_in_stock/settings", {
      key: shop.apiKey,
      body: { delivery: { batch_multiplier: 1, batch_interval_seconds: 3600 } },
    });
    expect(settings.status).toBe(202);
    await seedVariants(env.app.pool, shop.shopId, [{ n: 901, product: 90, productTitle: "Rain Coat", available: 1 }]);
    const [first, deleted, third] = await addSignups(shop.shopId, 901, ["run-1@example.com", "run-2@example.com", "run-3@example.com"]);
    // One unit: the first batch alerts the oldest signup, and the run waits an hour for its next batch.
    await requestAlertRun(env.app.pool, shop.shopId, variantGid(901), "inventory_check");
    await waitFor("the first alert", async () => (env.sink.to("run-1@example.com").length === 1 ? true : undefined));
    await waitFor("the first signup's reminder to be queued", async () =>
      (await count("select 1 from bis_reminder_queue where signup_id = $1", [first])) === 1 ? true : undefined,
    );
    expect(await count("select 1 from bis_alert_runs where shop_id = $1 and status = 'running'", [shop.shopId])).toBe(1);

    // The next in the queue is deleted while the run waits; the first, already alerted, is deleted too.
    expect((await invoke(env.app, "DELETE", `/back_in_stock/signups/${deleted}`, { key: shop.apiKey })).status).toBe(202);
    expect((await invoke(env.app, "DELETE", `/back_in_stock/signups/${first}`, { key: shop.apiKey })).status).toBe(202);
    expect(await count("select 1 from bis_reminder_queue where signup_id = $1", [first])).toBe(0);
    expect(await count("select 1 from bis_ledger where signup_id = $1", [first])).toBe(0);

    await runNextBatchNow(env.app.pool, shop.shopId, alertRunKey(shop.shopId, variantGid(901)));
    await waitFor("the third signup's alert", async () => (env.sink.to("run-3@example.com").length === 1 ? true : undefined));
    await waitFor("the run to end", async () =>
      (await count("select 1 from bis_alert_runs where shop_id = $1 and status = 'running'", [shop.shopId])) === 0 ? true : undefined,
    );
    expect(env.sink.to("run-2@example.com")).toHaveLength(0);
    expect(await count("select 1 from bis_ledger where signup_id = $1", [deleted])).toBe(0);
    expect(await count("select 1 from bis_notifications where signup_id = $1", [deleted])).toBe(0);
    const { rows } = await env.app.pool.query<{ status: string }>("select status from bis_signups where id = $1", [third]);
    expect(rows).toEqual([{ status: "notified" }]);
    const { rows: runs } = await env.app.pool.query<{ notified: number; stop_reason: string | null; status: string }>(
      "select notified, status, stop_reason from bis_alert_runs where shop_id = $1",
      [shop.shopId],
    );
    expect(runs).toEqual([{ notified: 2, status: "completed", stop_reason: null }]);
  });
});
