import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { requestAlertRun } from "../src/back_in_stock/alerts/runs.ts";
import { loadConfig } from "../src/config.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { type WorkerProcess, startWorkerProcess } from "./helpers/worker-process.ts";

const SIGNUPS = 5000;
/** Sends in flight at once (the default): the most a crash may send twice. */
const SEND_CONCURRENCY = loadConfig({}).SEND_CONCURRENCY;
const env = useTestEnv({ app: false, shop: false, smtp: { keepRaw: false }, dataDir: true });
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** The service's worker as a child process; resolves once it is running. */
function startWorker(): Promise<WorkerProcess> {
  return startWorkerProcess(
    "test/fixtures/alerts-worker.ts",
    {
      DATABASE_URL: env.db.url,
      SMTP_URL: env.sink.url,
      DATA_DIR: env.dataDir,
      LOG_LEVEL: process.env.FIXTURE_LOG_LEVEL ?? "silent",
      PLATFORM_API_SECRET: "alerts-crash-test-secret-0123456789",
    },
    children,
  );
}

async function scalar(sql: string, values: unknown[]): Promise<number> {
  const { rows } = await env.pool.query<{ n: number }>(sql, values);
  return rows[0]?.n ?? 0;
}

describe("a worker killed in the middle of an alert run", () => {
  it("every signup is alerted after a restart, duplicates at most the sends in flight at the kill (SEND_CONCURRENCY)", { timeout: 180_000 }, async () => {
    const { shopId } = await createShopWithKey(env.pool, "Crash Shop");
    await env.pool.query("insert into bis_settings (shop_id, settings) values ($1, $2)", [
      shopId,
      JSON.stringify({ delivery: { batch_multiplier: 100, batch_interval_seconds: 3600 } }),
    ]);
    await seedVariants(env.pool, shopId, [{ n: 1, product: 1, available: 0, productTitle: "Crash Tee" }]);
    await env.pool.query(
      `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
       select $1, $2, 'email', 'crash-' || i || '@example.com', true, now() - interval '1 day' + make_interval(secs => i)
       from generate_series(1, $3) i`,
      [shopId, variantGid(1), SIGNUPS],
    );
    // The restock: 1,000 units x 100 covers all 5,000 in one batch.
    await env.pool.query("update inventory_levels set available = 1000, seen_at = now() where shop_id = $1", [shopId]);
    await requestAlertRun(env.pool, shopId, variantGid(1), "inventory_webhook");

    const first = await startWorker();
    await waitFor("a third of the run to reach the sink", async () => (env.sink.messages.length >= SIGNUPS / 3 ? true : undefined), 60_000);
    first.child.kill("SIGKILL");
    expect(await first.exited).toBeNull();
    const receivedAtKill = env.sink.messages.length;
    // Claimed but not marked: leased to the killed worker's connections (sent or not yet), or not leased yet.
    const { rows: pending } = await env.pool.query<{ id: string }>("select id from bis_ledger where shop_id = $1 and status = 'pending'", [shopId]);
    const sentAtKill = await scalar("select count(*)::int as n from bis_ledger where shop_id = $1 and status = 'sent'", [shopId]);
    expect(receivedAtKill).toBeLessThan(SIGNUPS);

    const second = await startWorker();
    await waitFor(
      "every signup to be alerted",
      async () => ((await scalar("select count(*)::int as n from bis_ledger where shop_id = $1 and status = 'sent'", [shopId])) === SIGNUPS ? true : undefined),
      120_000,
    );
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);

    const distinct = env.sink.byMessageId.size;
    const duplicates = env.sink.messages.length - distinct;
    const duplicated = [...env.sink.byMessageId].filter(([, n]) => n > 1).map(([id]) => id);
    const pendingIds = new Set(pending.map((r) => `<${r.id}@localhost>`));
    console.log(
      `[alerts crash] killed after ${receivedAtKill} messages received (${sentAtKill} marked sent); ` +
        `${pending.length} claimed but unmarked at the kill (sends in flight at most ${SEND_CONCURRENCY}); ` +
        `after the restart: ${distinct} distinct messages, ${duplicates} duplicates`,
    );
    expect(distinct).toBe(SIGNUPS);
    // Each message is marked as its send completes, before its slot takes the next one: only the
    // sends in flight at the kill can go twice (the 200-message chunk marked at once sent up to 400 twice).
    expect(duplicates).toBeLessThanOrEqual(SEND_CONCURRENCY);
    // A duplicate is always a message that was in flight at the kill, resent with its own id.
    for (const id of duplicated) expect(pendingIds.has(id)).toBe(true);
    expect(await scalar("select count(*)::int as n from bis_ledger where shop_id = $1", [shopId])).toBe(SIGNUPS);
    expect(await scalar("select count(*)::int as n from bis_signups where shop_id = $1 and status = 'notified'", [shopId])).toBe(SIGNUPS);
    expect(await scalar("select count(*)::int as n from bis_notifications where shop_id = $1 and status = 'sent'", [shopId])).toBe(SIGNUPS);
    expect(await scalar("select count(*)::int as n from bis_alert_runs where shop_id = $1 and status = 'completed'", [shopId])).toBe(1);
  });
});
