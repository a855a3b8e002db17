import { randomUUID } from "node:crypto";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { acceptWebhook, intakeConcurrency, intakeConcurrencyOf, setIntakeConcurrency } from "../src/webhooks/intake.ts";
import { recoverRuns } from "../src/back_in_stock/alerts/runs.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

// The intake applies an inventory webhook in its own transaction in few round trips (a hundred
// restocks at once each hold a connection for the whole of it), with every rule of restock
// detection as it was: the minimum quantity, eligible signups, the initial stage's switch, a run
// under way, inactive locations, and the duplicate and other-shop checks under concurrency.

const env = useTestEnv({ app: false, shop: false, poolSize: 12 });

/** The pool, with the statements its transactions send counted (begin and commit included), and those sent on the pool itself. */
function counting(pool: pg.Pool): { pool: pg.Pool; statements: () => number; poolStatements: () => number } {
  let statements = 0;
  let poolStatements = 0;
  const wrapped = {
    async connect() {
      const client = await pool.connect();
      return {
        query: (...args: Parameters<pg.PoolClient["query"]>) => {
          statements += 1;
          return (client.query as (...a: unknown[]) => unknown)(...args);
        },
        release: (destroy?: boolean | Error) => client.release(destroy),
      };
    },
    query: (...args: Parameters<pg.Pool["query"]>) => {
      poolStatements += 1;
      return (pool.query as (...a: unknown[]) => unknown)(...args);
    },
  };
  return { pool: wrapped as unknown as pg.Pool, statements: () => statements, poolStatements: () => poolStatements };
}

let shops = 0;
async function shop(settings?: unknown): Promise<{ shopId: string; domain: string }> {
  shops += 1;
  const { shopId } = await createShopWithKey(env.pool, `Restock Intake ${shops}`);
  const domain = `restock-intake-${shops}.platform.local`;
  await env.pool.query("update shops set platform_domain = $2 where id = $1", [shopId, domain]);
  if (settings) await env.pool.query("insert into bis_settings (shop_id, settings) values ($1, $2)", [shopId, JSON.stringify(settings)]);
  return { shopId, domain };
}

async function signup(shopId: string, n: number, fields: { channel?: string; consent?: boolean } = {}): Promise<void> {
  await env.pool.query("insert into bis_signups (shop_id, variant_id, channel, contact, consent) values ($1, $2, $3, $4, $5)", [
    shopId,
    variantGid(n),
    fields.channel ?? "email",
    fields.channel === "sms" ? `+1555000${String(n).padStart(4, "0")}` : `v${n}-${randomUUID()}@example.com`,
    fields.consent ?? true,
  ]);
}

// The seeded levels are stamped with the database's now() (microseconds); a level stamped with
// the same millisecond by Date (milliseconds, rounded down) was older than the seed and ignored,
// so the restock never happened (1 run in 3 on the embedded server). One millisecond later is after it.
const level = (n: number, available: number, location = 1) => ({
  inventory_item_id: n,
  location_id: location,
  available,
  updated_at: new Date(Date.now() + 1).toISOString(),
});

async function deliver(pool: pg.Pool, domain: string, payload: unknown, topic: "inventory_levels/update" | "orders/create" = "inventory_levels/update") {
  return acceptWebhook(pool, { shopDomain: domain, topic, webhookId: randomUUID(), payload });
}

async function runsOf(shopId: string): Promise<{ variant_id: string; batch_quota: number | null; last_available: number | null }[]> {
  const { rows } = await env.pool.query<{ variant_id: string; batch_quota: number | null; last_available: number | null }>(
    "select variant_id, batch_quota, last_available from bis_alert_runs where shop_id = $1 and status = 'running' order by variant_id",
    [shopId],
  );
  return rows;
}

async function jobsOf(shopId: string, task: string): Promise<number> {
  const { rows } = await env.pool.query<{ n: number }>(`select count(*)::int as n from graphile_worker.jobs j join graphile_worker._private_jobs p on p.id = j.id
     where j.task_identifier = $1 and p.payload->>'shop_id' = $2`, [
    task,
    shopId,
  ]);
  return rows[0]?.n ?? 0;
}

/**
 * A pool of `max` connections (its size is what the intake reads) over the test's, counting the
 * connections its transactions hold and the statements run on the pool itself (the burst's
 * add_job) at once; `gate`, when given, holds each pool statement until it resolves.
 */
function countingInFlight(max: number, gate?: () => Promise<void>) {
  let inTransactions = 0;
  let inStatements = 0;
  const most = { transactions: 0, statements: 0, statementsRun: 0, released: 0 };
  const pool = {
    options: { max },
    async connect() {
      const client = await env.pool.connect();
      most.transactions = Math.max(most.transactions, ++inTransactions);
      return {
        query: (...args: Parameters<pg.PoolClient["query"]>) => (client.query as (...a: unknown[]) => unknown)(...args),
        release: (destroy?: boolean | Error) => {
          inTransactions -= 1;
          most.released += 1;
          client.release(destroy);
        },
      };
    },
    async query(...args: Parameters<pg.Pool["query"]>) {
      most.statements = Math.max(most.statements, ++inStatements);
      most.statementsRun += 1;
      try {
        await gate?.();
        return await (env.pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
      } finally {
        inStatements -= 1;
      }
    },
  } as unknown as pg.Pool;
  return { pool, most };
}

async function restockable(first: number, count: number): Promise<{ shopId: string; domain: string }> {
  const created = await shop();
  await seedVariants(
    env.pool,
    created.shopId,
    Array.from({ length: count }, (_, i) => ({ n: first + i, product: first + i, available: 0 })),
  );
  for (let i = 0; i < count; i++) await signup(created.shopId, first + i);
  return created;
}

describe("the intake of an inventory webhook", () => {
  it("records a restock, writes the level and opens the run in at most 5 statements, then queues the burst", async () => {
    const { shopId, domain } = await shop({ delivery: { batch_multiplier: 2 } });
    await seedVariants(env.pool, shopId, [{ n: 501, product: 501, available: 0 }]);
    await signup(shopId, 501);
    const counted = counting(env.pool);
    expect(await deliver(counted.pool, domain, level(501, 3))).toBe("accepted");
    // begin; shop, digest, lock and rules; duplicate checks, insert, stock before and the level;
    // the stock after and the run; commit. It took 18, then 7. The burst: one add_job after it.
    expect(counted.statements()).toBeLessThanOrEqual(5);
    expect(counted.poolStatements()).toBe(1);
    expect(await runsOf(shopId)).toEqual([{ variant_id: variantGid(501), batch_quota: 6, last_available: 3 }]);
    expect(await jobsOf(shopId, "bis_restock_burst")).toBe(1);
    const { rows } = await env.pool.query<{ processed: boolean }>("select processed_at is not null as processed from webhook_deliveries where shop_id = $1", [shopId]);
    expect(rows).toEqual([{ processed: true }]);
  });

  it("opens runs only for a rise to the minimum with an eligible signup waiting; each variant of the item on its own", async () => {
    const { shopId, domain } = await shop({ delivery: { minimum_restock_quantity: 5 }, compliance: { opt_in_required: true }, channels: { sms: { enabled: false } } });
    await seedVariants(env.pool, shopId, [
      { n: 511, product: 511, available: 0 },
      { n: 512, product: 512, available: 0 },
      { n: 513, product: 513, available: 0 },
      { n: 514, product: 514, available: 0 },
      { n: 515, product: 515, available: 6 },
    ]);
    await signup(shopId, 511);
    await signup(shopId, 512, { consent: false });
    await signup(shopId, 513, { channel: "sms" });
    await signup(shopId, 514);
    await signup(shopId, 515);
    // Below the minimum; only a signup without consent; only a switched-off channel; no rise (6 to 6).
    await deliver(env.pool, domain, level(511, 4));
    await deliver(env.pool, domain, level(512, 9));
    await deliver(env.pool, domain, level(513, 9));
    await deliver(env.pool, domain, level(515, 6));
    expect(await runsOf(shopId)).toEqual([]);
    expect(await jobsOf(shopId, "bis_restock_burst")).toBe(0);
    // A second location takes 511 from 4 to 5: a restock.
    await deliver(env.pool, domain, level(511, 1, 2));
    // An inactive location's units do not count.
    await env.pool.query("insert into locations (shop_id, id, name, active, updated_at, seen_at) values ($1, 'gid://shopify/Location/9', 'Closed', false, now(), now())", [shopId]);
    await deliver(env.pool, domain, level(514, 50, 9));
    expect(await runsOf(shopId)).toEqual([{ variant_id: variantGid(511), batch_quota: 5, last_available: 5 }]);
    await deliver(env.pool, domain, level(514, 5));
    expect((await runsOf(shopId)).map((r) => r.variant_id)).toEqual([variantGid(511), variantGid(514)]);
    // One burst, not yet started, serves both restocks.
    expect(await jobsOf(shopId, "bis_restock_burst")).toBe(1);
  });

  it("keeps one burst per shop while it has not started, and queues another once it runs", async () => {
    const { shopId, domain } = await shop();
    await seedVariants(env.pool, shopId, [571, 572, 573].map((n) => ({ n, product: n, available: 0 })));
    for (const n of [571, 572, 573]) await signup(shopId, n);
    await Promise.all([deliver(env.pool, domain, level(571, 2)), deliver(env.pool, domain, level(572, 2))]);
    expect(await jobsOf(shopId, "bis_restock_burst")).toBe(1);
    // A worker takes it: a restock after that needs a burst of its own (the running one may have read the runs already).
    await env.pool.query("update graphile_worker._private_jobs set locked_at = now(), locked_by = 'test-worker' where key = $1", [`bis_restock_burst:${shopId}`]);
    await deliver(env.pool, domain, level(573, 2));
    expect(await jobsOf(shopId, "bis_restock_burst")).toBe(2);
    expect(await runsOf(shopId)).toHaveLength(3);
    // The running one goes on without the key; the new one holds it, due now, ahead of other work.
    const { rows } = await env.pool.query<{ key: string | null; locked: boolean; priority: number; due: boolean }>(
      `select p.key, p.locked_at is not null as locked, p.priority, p.run_at <= now() as due from graphile_worker._private_jobs p
       join graphile_worker._private_tasks t on t.id = p.task_id where t.identifier = 'bis_restock_burst' and p.payload->>'shop_id' = $1 order by p.id`,
      [shopId],
    );
    expect(rows).toEqual([
      { key: null, locked: true, priority: -10, due: true },
      { key: `bis_restock_burst:${shopId}`, locked: false, priority: -10, due: true },
    ]);
  });

  it("answers a restock recorded even when its burst cannot be queued after the commit, and leaves its runs to the recovery sweep", async () => {
    const { shopId, domain } = await shop();
    await seedVariants(env.pool, shopId, [{ n: 581, product: 581, available: 0 }]);
    await signup(shopId, 581);
    // The transaction's statements go through; the add_job after the commit (on the pool) fails.
    const failing = {
      connect: () => env.pool.connect(),
      query: () => Promise.reject(new Error("Connection terminated unexpectedly")),
    } as unknown as pg.Pool;
    const warned: string[] = [];
    const outcome = await acceptWebhook(
      failing,
      { shopDomain: domain, topic: "inventory_levels/update", webhookId: randomUUID(), payload: level(581, 2) },
      { log: { warn: (_details, message) => warned.push(message) } },
    );
    expect(outcome).toBe("accepted");
    expect(warned).toEqual(["restock burst not queued after the webhook's commit; the recovery sweep will send its runs"]);
    expect(await runsOf(shopId)).toEqual([{ variant_id: variantGid(581), batch_quota: 2, last_available: 2 }]);
    expect(await jobsOf(shopId, "bis_restock_burst")).toBe(0);
    // The sweep gives the run its batch.
    expect(await recoverRuns(env.pool)).toBeGreaterThanOrEqual(1);
    expect(await jobsOf(shopId, "bis_alert_run")).toBe(1);
  });

  it("opens every variant of one inventory item", async () => {
    const { shopId, domain } = await shop();
    await seedVariants(env.pool, shopId, [
      { n: 521, product: 521, available: 0 },
      { n: 522, product: 521, available: 0 },
    ]);
    await env.pool.query("update variants set inventory_item_id = 'gid://shopify/InventoryItem/521' where shop_id = $1", [shopId]);
    await signup(shopId, 521);
    await signup(shopId, 522);
    await deliver(env.pool, domain, level(521, 2));
    expect(await runsOf(shopId)).toEqual([
      { variant_id: variantGid(521), batch_quota: 2, last_available: 2 },
      { variant_id: variantGid(522), batch_quota: 2, last_available: 2 },
    ]);
    expect(await jobsOf(shopId, "bis_restock_burst")).toBe(1);
  });

  it("asks the run under way, or the batch when the initial stage is off, instead of opening one", async () => {
    const { shopId, domain } = await shop();
    await seedVariants(env.pool, shopId, [
      { n: 531, product: 531, available: 0 },
      { n: 532, product: 532, available: 0 },
    ]);
    await signup(shopId, 531);
    await signup(shopId, 532);
    await env.pool.query("insert into bis_alert_runs (shop_id, variant_id, trigger) values ($1, $2, 'inventory_check')", [shopId, variantGid(531)]);
    await deliver(env.pool, domain, level(531, 3));
    expect(await jobsOf(shopId, "bis_alert_run")).toBe(1);
    expect(await jobsOf(shopId, "bis_restock_burst")).toBe(0);

    await env.pool.query("insert into message_stage_settings (shop_id, area, stage, enabled) values ($1, 'back_in_stock', 'initial', false)", [shopId]);
    await deliver(env.pool, domain, level(532, 3));
    expect((await runsOf(shopId)).map((r) => r.variant_id)).toEqual([variantGid(531)]);
    expect(await jobsOf(shopId, "bis_alert_run")).toBe(2);
    expect(await jobsOf(shopId, "bis_restock_burst")).toBe(0);
  });

  it("takes a payload once: the same one again is a duplicate, under another topic it is new, from another shop refused", async () => {
    const a = await shop();
    const b = await shop();
    const payload = level(541, 1);
    expect(await deliver(env.pool, a.domain, payload)).toBe("accepted");
    expect(await deliver(env.pool, a.domain, payload)).toBe("duplicate");
    expect(await deliver(env.pool, a.domain, payload, "orders/create")).toBe("accepted");
    expect(await deliver(env.pool, b.domain, payload)).toBe("other_shop");
    expect(await deliver(env.pool, "nobody.platform.local", payload)).toBe("unknown_shop");
    const webhookId = randomUUID();
    const again = { shopDomain: a.domain, topic: "inventory_levels/update" as const, webhookId, payload: level(541, 2) };
    expect(await acceptWebhook(env.pool, again)).toBe("accepted");
    expect(await acceptWebhook(env.pool, { ...again, payload: level(541, 3) })).toBe("duplicate");
  });

  it("lets one of two shops racing with one payload have it, and records it once", async () => {
    const a = await shop();
    const b = await shop();
    await seedVariants(env.pool, a.shopId, [{ n: 551, product: 551, available: 0 }]);
    await seedVariants(env.pool, b.shopId, [{ n: 551, product: 551, available: 0 }]);
    const payload = level(551, 2);
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => deliver(env.pool, i % 2 === 0 ? a.domain : b.domain, payload)));
    expect(outcomes.filter((o) => o === "accepted")).toHaveLength(1);
    const winner = outcomes.findIndex((o) => o === "accepted") % 2 === 0 ? "a" : "b";
    expect(outcomes.filter((o, i) => o !== "accepted" && (i % 2 === 0 ? "a" : "b") === winner).every((o) => o === "duplicate")).toBe(true);
    expect(outcomes.filter((o, i) => (i % 2 === 0 ? "a" : "b") !== winner).every((o) => o === "other_shop")).toBe(true);
    const { rows } = await env.pool.query<{ n: number }>("select count(*)::int as n from webhook_deliveries where shop_id = any($1::uuid[])", [[a.shopId, b.shopId]]);
    expect(rows[0]?.n).toBe(1);
  });

  it("holds at most a quarter of the pool's connections in transactions, however many webhooks arrive at once, and one more for the shop's burst", async () => {
    const { shopId, domain } = await restockable(600, 40);
    const { pool, most } = countingInFlight(8);
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => deliver(pool, domain, level(600 + i, 2))));
    expect(outcomes.every((o) => o === "accepted")).toBe(true);
    expect(most.transactions).toBe(2);
    // The burst's add_job runs after the commit, outside the limit, one at a time for the shop.
    expect(most.statements).toBe(1);
    expect(await runsOf(shopId)).toHaveLength(40);
  });

  it("queues the burst of a wave of webhooks with two add_jobs: the calls during the first share the next", async () => {
    const { shopId, domain } = await restockable(700, 12);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    // The first add_job waits until every delivery has committed; the later ones go through.
    const { pool, most } = countingInFlight(40, () => {
      if (!first) return Promise.resolve();
      first = false;
      return held;
    });
    const outcomes = Promise.all(Array.from({ length: 12 }, (_, i) => deliver(pool, domain, level(700 + i, 2))));
    // Every transaction over (its connection released): each delivery has asked for its burst in
    // the microtasks after that, which a timer's turn follows.
    await waitFor("every delivery committed", () => Promise.resolve(most.released === 12 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(most.statementsRun).toBe(1);
    release();
    expect((await outcomes).every((o) => o === "accepted")).toBe(true);
    // Before: one add_job per delivery (12), each waiting for the key row's lock of the one before.
    expect(most.statementsRun).toBe(2);
    expect(await jobsOf(shopId, "bis_restock_burst")).toBe(1);
  });

  it("runs as many transactions at once as set for the pool: a web-only process's all but four of its connections, beside the worker a quarter", async () => {
    expect(intakeConcurrency(20, false)).toBe(16);
    expect(intakeConcurrency(20, true)).toBe(5);
    expect(intakeConcurrency(4, false)).toBe(2);
    const { shopId, domain } = await restockable(800, 40);
    const { pool, most } = countingInFlight(8);
    setIntakeConcurrency(pool, 6);
    expect(intakeConcurrencyOf(pool)).toBe(6);
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => deliver(pool, domain, level(800 + i, 2))));
    expect(outcomes.every((o) => o === "accepted")).toBe(true);
    expect(most.transactions).toBe(6);
    expect(await runsOf(shopId)).toHaveLength(40);
  });

  it("records a level the database refuses for the webhook job, with nothing of it applied", async () => {
    const { shopId, domain } = await shop();
    await seedVariants(env.pool, shopId, [{ n: 561, product: 561, available: 0 }]);
    await signup(shopId, 561);
    expect(await deliver(env.pool, domain, { ...level(561, 5), updated_at: "not a time" })).toBe("accepted");
    const { rows } = await env.pool.query<{ processed: boolean }>("select processed_at is not null as processed from webhook_deliveries where shop_id = $1", [shopId]);
    expect(rows).toEqual([{ processed: false }]);
    expect(await runsOf(shopId)).toEqual([]);
    const { rows: levels } = await env.pool.query<{ available: number }>("select available from inventory_levels where shop_id = $1", [shopId]);
    expect(levels).toEqual([{ available: 0 }]);
    const { rows: jobs } = await env.pool.query<{ n: number }>(
      "select count(*)::int as n from graphile_worker._private_jobs p join webhook_deliveries w on w.id = (p.payload->>'delivery_id')::bigint where w.shop_id = $1",
      [shopId],
    );
    expect(jobs[0]?.n).toBe(1);
  });
});
