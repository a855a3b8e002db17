import { describe, expect, it } from "vitest";
import { requestAlertRun } from "../src/back_in_stock/alerts/runs.ts";
import { retrySpanSeconds, sendAttemptsFor } from "../src/messaging/retry.ts";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

// An SMTP server down for longer than any short retry budget loses nothing: the alerts wait,
// pending with their last error, and every one arrives exactly once when the server is back.
// graphile-worker's backoff is hours long by then: the test brings each retry forward (the clock
// it would wait on) instead of sleeping.

const env = useTestEnv({ shop: false, smtp: true, dataDir: true, worker: { poolSize: 12, pollInterval: 50 } });
const SIGNUPS = 12;

async function addSignups(shopId: string, variant: number, prefix: string, n: number): Promise<string[]> {
  const { rows } = await env.app.pool.query<{ id: string }>(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
     select $1, $2, 'email', $3 || i || '@example.com', true, now() - interval '1 day' + make_interval(secs => i)
     from generate_series(1, $4) i returning id`,
    [shopId, variantGid(variant), prefix, n],
  );
  return rows.map((r) => r.id);
}

async function sendJobs(shopId: string): Promise<{ key: string; attempts: number; max_attempts: number; locked: boolean }[]> {
  const { rows } = await env.app.pool.query<{ key: string; attempts: number; max_attempts: number; locked: boolean }>(
    `select j.key, j.attempts, j.max_attempts, j.locked_at is not null as locked from graphile_worker.jobs j
     join bis_ledger l on j.key = 'bis_send:' || l.id where l.shop_id = $1`,
    [shopId],
  );
  return rows;
}

/** What an hour of graphile-worker's backoff would do: every waiting retry of the shop runs now. */
async function retriesNow(shopId: string): Promise<void> {
  await env.app.pool.query(
    `update graphile_worker._private_jobs j set run_at = now()
     from bis_ledger l where j.key = 'bis_send:' || l.id and l.shop_id = $1 and j.locked_at is null`,
    [shopId],
  );
}

async function statuses(shopId: string): Promise<Record<string, number>> {
  const { rows } = await env.app.pool.query<{ status: string; n: number }>("select status, count(*)::int as n from bis_signups where shop_id = $1 group by status", [shopId]);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

describe("an SMTP outage longer than the old retry budget", () => {
  it("the retry window covers SEND_RETRY_HOURS of graphile-worker's backoff", () => {
    const attempts = sendAttemptsFor(24);
    expect(retrySpanSeconds(attempts)).toBeGreaterThanOrEqual(24 * 3600);
    expect(retrySpanSeconds(attempts - 1)).toBeLessThan(24 * 3600);
    // The budget before: 5 attempts, about 85 s.
    expect(attempts).toBeGreaterThan(5);
  });

  it("loses no alert: pending with the last error while the server is down, each delivered exactly once after", async () => {
    const { shopId, apiKey } = await createShopWithKey(env.app.pool, "Outage Shop");
    await env.app.pool.query("insert into bis_settings (shop_id, settings) values ($1, $2)", [
      shopId,
      JSON.stringify({ delivery: { batch_multiplier: 100, batch_interval_seconds: 3600 } }),
    ]);
    await seedVariants(env.app.pool, shopId, [{ n: 7, product: 7, available: 0 }]);
    const ids = await addSignups(shopId, 7, "outage-", SIGNUPS);
    env.sink.outage.down = true;
    await env.app.pool.query("update inventory_levels set available = 50, seen_at = now() where shop_id = $1", [shopId]);
    await requestAlertRun(env.app.pool, shopId, variantGid(7), "inventory_webhook");

    // Every alert waits for its retry, as its own send job with the whole window of attempts.
    const maxAttempts = sendAttemptsFor(24);
    await waitFor("every alert to wait for its retry", async () => {
      const jobs = await sendJobs(shopId);
      return jobs.length === SIGNUPS ? true : undefined;
    });
    for (const job of await sendJobs(shopId)) expect(job.max_attempts).toBe(maxAttempts);

    // Eight rounds of retries (more than the 5 attempts that used to end in "failed").
    for (let round = 1; round <= 8; round++) {
      await retriesNow(shopId);
      await waitFor(`retry round ${round} to fail`, async () => {
        const jobs = await sendJobs(shopId);
        return jobs.every((j) => j.attempts >= round && !j.locked) ? true : undefined;
      });
    }
    expect(env.sink.messages).toHaveLength(0);
    expect(await statuses(shopId)).toEqual({ pending: SIGNUPS });
    const { rows: ledger } = await env.app.pool.query<{ status: string; attempts: number; last_error: string }>(
      "select status, attempts, last_error from bis_ledger where shop_id = $1",
      [shopId],
    );
    for (const row of ledger) {
      expect(row.status).toBe("pending");
      expect(row.attempts).toBeGreaterThanOrEqual(9);
      expect(row.last_error).toMatch(/421|SMTP/);
    }
    const signup = await invoke(env.app, "GET", `/back_in_stock/signups/${ids[0]}`, { key: apiKey });
    expect(signup.body).toMatchObject({ status: "pending", notified_at: null });
    expect((signup.body as { last_error: string }).last_error).toMatch(/421|SMTP/);
    // Nothing was logged as an outcome: no failure, no "sent".
    expect((await env.app.pool.query("select 1 from bis_notifications where shop_id = $1", [shopId])).rowCount).toBe(0);

    env.sink.outage.down = false;
    await waitFor("every alert to be delivered", async () => {
      await retriesNow(shopId);
      const s = await statuses(shopId);
      return s.notified === SIGNUPS ? true : undefined;
    });
    const received = env.sink.messages.filter((m) => m.to.startsWith("outage-"));
    expect(received).toHaveLength(SIGNUPS);
    expect(new Set(received.map((m) => m.to)).size).toBe(SIGNUPS);
    const { rows: log } = await env.app.pool.query<{ status: string; n: number }>(
      "select status, count(*)::int as n from bis_notifications where shop_id = $1 group by status",
      [shopId],
    );
    expect(log).toEqual([{ status: "sent", n: SIGNUPS }]);
  });

  it("a message still failing at the end of the window is failed with the reason, and notify sends it again", async () => {
    const { shopId, apiKey } = await createShopWithKey(env.app.pool, "Give Up Shop");
    await seedVariants(env.app.pool, shopId, [{ n: 8, product: 8, available: 0 }]);
    const [id] = await addSignups(shopId, 8, "giveup-", 1);
    env.sink.outage.down = true;
    try {
      const first = await invoke(env.app, "POST", `/back_in_stock/signups/${id}/notify`, { key: apiKey });
      expect(first).toMatchObject({ status: 202, body: { status: "pending", resent: false } });
      const messageId = (first.body as { message_id: string }).message_id;
      await waitFor("the first attempt to fail", async () => {
        const { rows } = await env.app.pool.query<{ attempts: number }>("select attempts from graphile_worker.jobs where key = $1 and locked_at is null", [
          `bis_send:${messageId}`,
        ]);
        return (rows[0]?.attempts ?? 0) >= 1 ? true : undefined;
      });
      // The window's last attempt, now.
      await env.app.pool.query("update graphile_worker._private_jobs set attempts = max_attempts - 1, run_at = now() where key = $1", [`bis_send:${messageId}`]);
      const failed = await waitFor("the message to fail for good", async () => {
        const answer = await invoke(env.app, "GET", `/back_in_stock/signups/${id}`, { key: apiKey });
        return (answer.body as { status: string }).status === "failed" ? (answer.body as { last_error: string }) : undefined;
      });
      expect(failed.last_error).toMatch(/^still failing after 24 h of retries: .*421/);
      const { rows: log } = await env.app.pool.query<{ status: string; error: string }>("select status, error from bis_notifications where signup_id = $1", [id]);
      expect(log).toEqual([{ status: "failed", error: failed.last_error }]);
    } finally {
      env.sink.outage.down = false;
    }
    const again = await invoke(env.app, "POST", `/back_in_stock/signups/${id}/notify`, { key: apiKey });
    expect(again).toMatchObject({ status: 202, body: { status: "pending", resent: true } });
    await waitFor("the resent alert to be accepted", async () => {
      const answer = await invoke(env.app, "GET", `/back_in_stock/signups/${id}`, { key: apiKey });
      return (answer.body as { status: string }).status === "notified" ? true : undefined;
    });
    expect(env.sink.to("giveup-1@example.com")).toHaveLength(1);
    // Delivered once: a third notify is refused.
    const third = await invoke(env.app, "POST", `/back_in_stock/signups/${id}/notify`, { key: apiKey });
    expect(third.status).toBe(409);
  });

  it("bulk_notify by variant sends the failed ones again beside the waiting ones", async () => {
    const { shopId, apiKey } = await createShopWithKey(env.app.pool, "Bulk Resend Shop");
    await seedVariants(env.app.pool, shopId, [{ n: 9, product: 9, available: 0 }]);
    const ids = await addSignups(shopId, 9, "bulk-resend-", 3);
    env.sink.reject.add("bulk-resend-1@example.com");
    const first = await invoke(env.app, "POST", "/back_in_stock/signups/bulk_notify", { key: apiKey, body: { ids: ids.slice(0, 1) } });
    expect(first.status).toBe(202);
    await waitFor("the refused alert to fail", async () => ((await statuses(shopId)).failed === 1 ? true : undefined));
    env.sink.reject.delete("bulk-resend-1@example.com");
    const bulk = await invoke(env.app, "POST", "/back_in_stock/signups/bulk_notify", { key: apiKey, body: { variant_id: variantGid(9) } });
    expect(bulk.status).toBe(202);
    const job = await waitFor("the bulk job to complete", async () => {
      const answer = await invoke(env.app, "GET", (bulk.body as { status_url: string }).status_url.replace("/api/v2/external", ""), { key: apiKey });
      return (answer.body as { status: string }).status === "completed" ? (answer.body as { result: Record<string, number> }) : undefined;
    });
    expect(job.result).toMatchObject({ requested: 3, resent: 1, sent: 3, failed: 0 });
    expect(await statuses(shopId)).toEqual({ notified: 3 });
    expect(env.sink.to("bulk-resend-1@example.com")).toHaveLength(1);
  });
});
