import http from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createRegistry } from "../src/action-registry.ts";
import { claimBlocked } from "../src/back_in_stock/alerts/ledger.ts";
import { onCommit, withTransaction } from "../src/core/db.ts";
import { Dispatcher } from "../src/core/dispatcher.ts";
import { defineTask } from "../src/core/tasks.ts";
import { createHttpServer } from "../src/http/server.ts";
import { observeDispatch } from "../src/metrics/observe.ts";
import { QUEUE_DEPTH_CACHE_MS, collectQueueDepth } from "../src/metrics/queue.ts";
import { exposition } from "../src/metrics/registry.ts";
import { serveMetrics } from "../src/metrics/server.ts";
import { PlatformClient } from "../src/platform/client.ts";
import { CostBucket } from "../src/platform/throttle.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { api, createShopWithKey, testConfig } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";
import { insertOffer, orderPayload, placeOrder, useDomain } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";
import { deliverWebhook, webhooksProcessed } from "./helpers/webhook-delivery.ts";

// Metrics are per process (one registry, module state): every figure is read as a difference
// between two scrapes around what the test does, since other tests in this process count too.
const env = useTestEnv({ shop: false, smtp: true, dataDir: true, worker: { poolSize: 12, pollInterval: 50 } });

/** Samples of the exposition text: `name{labels} value` lines, labels as written. */
function parse(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!match?.[1] || !match[3]) throw new Error(`not an exposition line: ${line}`);
    const labels = match[2] ? [...match[2].slice(1, -1).matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => `${m[1]}=${m[2]}`).sort().join(",") : "";
    samples.set(`${match[1]}{${labels}}`, Number(match[3]));
  }
  return samples;
}

/** A series' key as parse() writes it: labels sorted by name. */
const series = (name: string, labels: Record<string, string> = {}) =>
  `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join(",")}}`;

let app: FastifyInstance;
let origin: string;

async function scrape(): Promise<{ text: string; samples: Map<string, number> }> {
  const response = await fetch(`${origin}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  return { text, samples: parse(text) };
}

const value = (samples: Map<string, number>, key: string) => samples.get(key) ?? 0;

beforeAll(async () => {
  // The API as the service wires it: the dispatcher's observer and /metrics on the same listener;
  // a small rate limit so a 429 comes after a few calls.
  const config = testConfig(env.db.url, { RATE_LIMIT_POINTS: "4", RATE_LIMIT_WINDOW_SECONDS: "3600" });
  const registry = createRegistry();
  app = createHttpServer({
    dispatcher: new Dispatcher({ registry, pool: env.app.pool, config, log: env.log, observe: observeDispatch }),
    log: env.log,
    bodyLimit: config.BODY_LIMIT_BYTES,
    healthy: async () => true,
    metrics: exposition,
    // Every scrape collects: the figures are read as differences between scrapes a moment apart.
    metricsCacheMs: 0,
  });
  origin = await app.listen({ port: 0, host: "127.0.0.1" });
});

afterAll(async () => {
  await app.close();
});

describe("GET /metrics", () => {
  it("serves the default process metrics in the Prometheus text format", async () => {
    const { text } = await scrape();
    expect(text).toContain("# TYPE process_cpu_user_seconds_total counter");
    expect(text).toContain("# TYPE nodejs_heap_size_used_bytes gauge");
  });

  it("counts requests per action and status class, 429s per action, and unknown routes as action none (no path in any label)", async () => {
    const { apiKey } = await createShopWithKey(env.app.pool, "Metrics Requests Shop");
    const action = createRegistry().match("GET", "/back_in_stock/settings")?.action.name ?? "";
    expect(action).not.toBe("");
    const before = (await scrape()).samples;
    const statuses: number[] = [];
    // Four points: three reads and one unknown route (charged too), then refusals. Until a 429 is
    // seen (a rate-limit window boundary in between only delays it).
    for (let i = 0; i < 3; i++) statuses.push((await api({ origin }, "GET", "/back_in_stock/settings", { key: apiKey })).status);
    const unknown = await api({ origin }, "GET", "/no-such-route-xyz/12345", { key: apiKey });
    let refused = 0;
    for (let i = 0; i < 12 && refused === 0; i++) {
      const answer = await api({ origin }, "GET", "/back_in_stock/settings", { key: apiKey });
      statuses.push(answer.status);
      if (answer.status === 429) refused += 1;
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(refused).toBe(1);
    const ok = statuses.filter((s) => s === 200).length;
    const { samples: after, text } = await scrape();
    const delta = (key: string) => value(after, key) - value(before, key);
    expect(delta(series("api_request_duration_seconds_count", { action, status: "2xx" }))).toBe(ok);
    expect(delta(series("api_request_duration_seconds_count", { action, status: "4xx" }))).toBe(1);
    expect(delta(series("api_rate_limit_refusals_total", { action }))).toBe(1);
    expect(delta(series("api_request_duration_seconds_count", { action: "none", status: `${Math.floor(unknown.status / 100)}xx` }))).toBe(1);
    expect(text).not.toContain("no-such-route-xyz");
    expect(text).not.toContain(apiKey);
  });
});

describe("job runs", () => {
  let runner: Runner;
  let failures = 0;

  beforeAll(async () => {
    const ok = defineTask({ name: "test.metrics_ok", payload: z.object({}), run: async () => undefined });
    const flaky = defineTask({
      name: "test.metrics_fail",
      payload: z.object({}),
      run: async () => {
        failures += 1;
        throw new Error("fails on purpose");
      },
    });
    runner = await startWorker({ pool: env.pool, log: env.log, config: env.config, platform: testPlatformRuntime() }, { pollInterval: 50, cron: false, extraTasks: [ok, flaky] });
  });

  afterAll(async () => {
    await runner.stop();
  });

  it("counts completed, retried and failed runs by task, with durations", async () => {
    const before = (await scrape()).samples;
    await env.pool.query("select graphile_worker.add_job('test.metrics_ok', '{}'::json)");
    await env.pool.query("select graphile_worker.add_job('test.metrics_ok', '{}'::json)");
    await env.pool.query("select graphile_worker.add_job('test.metrics_fail', '{}'::json, max_attempts := 2, job_key := 'metrics-fail')");
    // After the first failure, the second attempt is made due now rather than after the backoff.
    await waitFor("the first failure", async () => (failures >= 1 ? true : undefined));
    await waitFor("the retry to be scheduled", async () => {
      const { rowCount } = await env.pool.query("update graphile_worker._private_jobs set run_at = now() where key = 'metrics-fail' and attempts = 1 and locked_at is null");
      return (rowCount ?? 0) > 0 ? true : undefined;
    });
    const k = (task: string, outcome: string) => series("worker_jobs_total", { task, outcome });
    const after = await waitFor("the runs to be counted", async () => {
      const { samples } = await scrape();
      return value(samples, k("test.metrics_fail", "failed")) - value(before, k("test.metrics_fail", "failed")) >= 1 &&
        value(samples, k("test.metrics_ok", "completed")) - value(before, k("test.metrics_ok", "completed")) >= 2
        ? samples
        : undefined;
    });
    const delta = (key: string) => value(after, key) - value(before, key);
    expect(delta(k("test.metrics_ok", "completed"))).toBe(2);
    expect(delta(k("test.metrics_fail", "retried"))).toBe(1);
    expect(delta(k("test.metrics_fail", "failed"))).toBe(1);
    expect(delta(series("worker_job_duration_seconds_count", { task: "test.metrics_ok", outcome: "completed" }))).toBe(2);
    expect(delta(series("worker_job_duration_seconds_count", { task: "test.metrics_fail", outcome: "retried" }))).toBe(1);
  });
});

describe("queue depth", () => {
  it("is read at scrape time from graphile-worker's jobs and the app's jobs table, cached between scrapes", async () => {
    const stop = collectQueueDepth(env.pool);
    try {
      await env.pool.query("select graphile_worker.add_job('test.metrics_nobody_runs', '{}'::json, run_at := now() + interval '1 hour')");
      await env.pool.query("insert into jobs (kind, status) values ('metrics_test_kind', 'queued')");
      // The cache's age counts from this scrape's query, so the guard below starts before it.
      const started = performance.now();
      const { samples } = await scrape();
      expect(value(samples, series("queue_jobs", { queue: "graphile_worker", task: "test.metrics_nobody_runs", state: "scheduled" }))).toBe(1);
      expect(value(samples, series("queue_jobs", { queue: "app", task: "metrics_test_kind", state: "queued" }))).toBe(1);
      // Within the cache window a second scrape answers the same figures without a query.
      await env.pool.query("insert into jobs (kind, status) values ('metrics_test_kind', 'queued')");
      const again = (await scrape()).samples;
      if (performance.now() - started < QUEUE_DEPTH_CACHE_MS) {
        expect(value(again, series("queue_jobs", { queue: "app", task: "metrics_test_kind", state: "queued" }))).toBe(1);
      }
    } finally {
      stop();
    }
  });
});

describe("sends", () => {
  it("a back-in-stock alert sent by e-mail increments sends{kind=back_in_stock,channel=email,outcome=sent}", async () => {
    const { shopId, apiKey } = await createShopWithKey(env.app.pool, "Metrics Sends Shop");
    const domain = "metrics-sends-shop.platform.local";
    await env.app.pool.query("update shops set platform_domain = $2 where id = $1", [shopId, domain]);
    const patched = await api(env.app, "PATCH", "/back_in_stock/settings", { key: apiKey, body: { delivery: { batch_multiplier: 2, batch_interval_seconds: 3600 } } });
    expect(patched.status).toBe(202);
    await seedVariants(env.app.pool, shopId, [{ n: 901, product: 90, available: 0, productTitle: "Wool Hat", title: "Grey" }]);
    for (const [i, contact] of ["m1@example.com", "m2@example.com"].entries()) {
      await env.app.pool.query(
        `insert into bis_signups (shop_id, variant_id, channel, contact, consent, status, locale, created_at)
         values ($1, $2, 'email', $3, true, 'waiting', 'en', now() - interval '1 day' + make_interval(secs => $4))`,
        [shopId, variantGid(901), contact, i],
      );
    }
    const before = (await scrape()).samples;
    await deliverWebhook(env.app.origin, "inventory_levels/update", { inventory_item_id: 901, location_id: 1, available: 1, updated_at: new Date(Date.now() + 1000).toISOString() }, domain);
    await webhooksProcessed(env.app.pool, shopId);
    await waitFor("two alerts sent", async () => {
      const { rows } = await env.app.pool.query<{ n: number }>("select count(*)::int as n from bis_ledger where shop_id = $1 and status = 'sent'", [shopId]);
      return (rows[0]?.n ?? 0) >= 2 ? true : undefined;
    });
    const key = series("messages_sends_total", { kind: "back_in_stock", channel: "email", outcome: "sent" });
    // The ledger commits its marks before the counter moves: poll the scrape too.
    const after = await waitFor("the sends to be counted", async () => {
      const { samples } = await scrape();
      return value(samples, key) - value(before, key) >= 2 ? samples : undefined;
    });
    expect(value(after, key) - value(before, key)).toBe(2);
  });
});

describe("preorder sends", () => {
  it("a confirmation e-mailed counts sent; one to an order without an address counts blocked when it is claimed", async () => {
    const { shopId } = await createShopWithKey(env.app.pool, "Metrics Preorder Shop");
    const domain = "metrics-preorder-shop.platform.local";
    await useDomain(env.app.pool, shopId, domain);
    const offer = await insertOffer(env.app.pool, shopId);
    const sent = series("messages_sends_total", { kind: "preorder", channel: "email", outcome: "sent" });
    const blocked = series("messages_sends_total", { kind: "preorder", channel: "email", outcome: "blocked" });
    const before = (await scrape()).samples;

    const decided = async (orderId: string) =>
      waitFor(`the confirmation of order ${orderId} decided`, async () => {
        const { rows } = await env.app.pool.query<{ status: string }>("select status from preorder_notifications where order_id = $1 and stage = 'confirmation'", [orderId]);
        return rows.length > 0 && rows.every((r) => r.status !== "pending") ? rows.map((r) => r.status) : undefined;
      });
    expect(await decided(await placeOrder(env, domain, "orders/create", orderPayload({ plan: offer.plan, email: "metrics-buyer@example.com" })))).toEqual(["sent"]);
    expect(await decided(await placeOrder(env, domain, "orders/create", orderPayload({ plan: offer.plan, email: null })))).toEqual(["blocked"]);

    const after = await waitFor("the preorder sends to be counted", async () => {
      const { samples } = await scrape();
      return value(samples, sent) - value(before, sent) >= 1 ? samples : undefined;
    });
    expect(value(after, sent) - value(before, sent)).toBe(1);
    expect(value(after, blocked) - value(before, blocked)).toBe(1);
  });
});

describe("onCommit", () => {
  it("an effect that throws does not fail the transaction it runs after (it committed)", async () => {
    const answer = await withTransaction(env.app.pool, async (db) => {
      onCommit(db, () => {
        throw new Error("a counter's fault");
      });
      return "committed";
    });
    expect(answer).toBe("committed");
    expect(() => onCommit(env.app.pool, () => {
      throw new Error("a counter's fault");
    })).not.toThrow();
  });

  it("counts a blocked claim once its transaction commits, never when it rolls back", async () => {
    const { shopId } = await createShopWithKey(env.app.pool, "Metrics Claim Shop");
    await seedVariants(env.app.pool, shopId, [{ n: 951, product: 95, available: 0, productTitle: "Scarf", title: "Red" }]);
    const signup = async (contact: string) => {
      const { rows } = await env.app.pool.query<{ id: string }>(
        `insert into bis_signups (shop_id, variant_id, channel, contact, consent, status, locale) values ($1, $2, 'email', $3, true, 'notified', 'en') returning id`,
        [shopId, variantGid(951), contact],
      );
      return rows[0]?.id ?? "";
    };
    const key = series("messages_sends_total", { kind: "back_in_stock", channel: "email", outcome: "blocked" });
    const before = (await scrape()).samples;
    const kept = await signup("kept@example.com");
    const undone = await signup("undone@example.com");
    expect(await withTransaction(env.app.pool, (db) => claimBlocked(db, shopId, [kept], "reminder", "out_of_stock"))).toBe(1);
    await expect(
      withTransaction(env.app.pool, async (db) => {
        expect(await claimBlocked(db, shopId, [undone], "reminder", "out_of_stock")).toBe(1);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    const after = (await scrape()).samples;
    expect(value(after, key) - value(before, key)).toBe(1);
    const { rows } = await env.app.pool.query("select signup_id from bis_ledger where signup_id = any($1::uuid[])", [[kept, undone]]);
    expect(rows).toEqual([{ signup_id: kept }]);
  });
});

describe("a worker-only process's /metrics (WORKER_METRICS_PORT)", () => {
  it("serves the same registry on its own port; other paths are 404", async () => {
    const served = await serveMetrics(0, "127.0.0.1");
    try {
      const response = await fetch(`${served.url}/metrics`);
      expect(response.status).toBe(200);
      const samples = parse(await response.text());
      expect([...samples.keys()].some((k) => k.startsWith("worker_jobs_total{"))).toBe(true);
      expect((await fetch(`${served.url}/other`)).status).toBe(404);
    } finally {
      await served.close();
    }
  });
});

describe("platform throttling", () => {
  it("counts a throttled answer (HTTP 429) and the time spent waiting for the cost bucket", async () => {
    let calls = 0;
    const server = http.createServer((_request, response) => {
      calls += 1;
      if (calls === 1) response.writeHead(429, { "retry-after": "0" }).end();
      else response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: { ok: 1 } }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const before = (await scrape()).samples;
      const { port } = server.address() as AddressInfo;
      const client = new PlatformClient({ graphqlUrl: `http://127.0.0.1:${port}/admin/api/2026-07/graphql.json`, accessToken: "token", minRetryDelayMs: 1, maxRetryDelayMs: 5 });
      await expect(client.request("query Ping { ok }")).resolves.toEqual({ ok: 1 });
      // A bucket read as empty: the next reservation waits for points to come back.
      const bucket = new CostBucket();
      bucket.settle(await bucket.reserve(1), { maximumAvailable: 100, currentlyAvailable: 0, restoreRate: 100 });
      bucket.settle(await bucket.reserve(10));
      const after = (await scrape()).samples;
      expect(value(after, series("platform_throttled_total")) - value(before, series("platform_throttled_total"))).toBe(1);
      expect(value(after, series("platform_throttle_wait_seconds_total")) - value(before, series("platform_throttle_wait_seconds_total"))).toBeGreaterThan(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
