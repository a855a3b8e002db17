import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { requestAlertRun } from "../src/back_in_stock/alerts/runs.ts";
import { loadConfig } from "../src/config.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { type SmtpSink, startSmtpSink } from "./helpers/smtp-sink.ts";
import { startThrowawayPostgres } from "./helpers/throwaway-postgres.ts";
import { waitFor } from "./helpers/wait.ts";
import { type WorkerProcess, startWorkerProcess } from "./helpers/worker-process.ts";

/**
 * A DATABASE OUTAGE under an alert run, with the service's two processes (web and worker) as the
 * Procfile runs them, on a PostgreSQL of this test's own (stopping it disturbs no other test):
 * the outage is a pause. The worker stops sending while its marks cannot be written, keeps
 * running, and finishes the run once the database is back; at most the sends in flight when it
 * went away (SEND_CONCURRENCY) reach a customer twice. The API answers 503 with Retry-After
 * while the database is away, and 200 after.
 */

const SIGNUPS = 300;
/** Sends in flight at once (the default): the most an outage (as a crash) may send twice. */
const SEND_CONCURRENCY = loadConfig({}).SEND_CONCURRENCY;
/** How long the database stays away at least: longer than the worker's and the API's connection attempts take to fail. */
const OUTAGE_MS = 12_000;

const children: ChildProcess[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** The API process; resolves with its origin once it listens. */
async function startWeb(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, ["test/fixtures/outage-web.ts"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  const origin = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /web ready (\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`web exited with ${String(code)} before it was ready`)));
  });
  return { child, origin };
}

interface Probe {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

async function probeApi(origin: string, key: string): Promise<Probe> {
  const response = await fetch(`${origin}/api/v2/external/back_in_stock/signups`, { headers: { "x-auth-token": key } });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body };
}

function recipientsTwice(sink: SmtpSink): number {
  const counts = new Map<string, number>();
  for (const m of sink.messages) counts.set(m.to, (counts.get(m.to) ?? 0) + 1);
  return [...counts.values()].filter((n) => n > 1).length;
}

describe("a database outage under an alert run (web and worker as separate processes)", () => {
  it("pauses sending, keeps the worker running, answers 503 meanwhile, and finishes with at most SEND_CONCURRENCY sent twice", { timeout: 180_000 }, async () => {
    const db = await startThrowawayPostgres();
    cleanups.push(() => db.close());
    const { pool } = db;
    const sink = await startSmtpSink({ keepRaw: false });
    cleanups.push(() => sink.close());

    const { shopId, apiKey } = await createShopWithKey(pool, "Outage Shop");
    await pool.query("insert into bis_settings (shop_id, settings) values ($1, $2)", [
      shopId,
      JSON.stringify({ delivery: { batch_multiplier: 100, batch_interval_seconds: 3600 } }),
    ]);
    await seedVariants(pool, shopId, [{ n: 1, product: 1, available: 0, productTitle: "Outage Tee" }]);
    await pool.query(
      `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
       select $1, $2, 'email', 'outage-' || i || '@example.com', true, now() - interval '1 day' + make_interval(secs => i)
       from generate_series(1, $3) i`,
      [shopId, variantGid(1), SIGNUPS],
    );

    const env = {
      DATABASE_URL: db.url,
      SMTP_URL: sink.url,
      LOG_LEVEL: process.env.FIXTURE_LOG_LEVEL ?? "silent",
      PLATFORM_API_SECRET: "db-outage-test-secret-0123456789",
      PORT: "0",
    };
    const webDir = await mkdtemp(path.join(os.tmpdir(), "db-outage-web-"));
    const workerDir = await mkdtemp(path.join(os.tmpdir(), "db-outage-worker-"));
    cleanups.push(() => rm(webDir, { recursive: true, force: true }), () => rm(workerDir, { recursive: true, force: true }));
    const web = await startWeb({ ...env, DATA_DIR: webDir });
    const worker: WorkerProcess = await startWorkerProcess("test/fixtures/alerts-worker.ts", { ...env, DATA_DIR: workerDir }, children);
    const workerPid = worker.child.pid;
    expect((await probeApi(web.origin, apiKey)).status).toBe(200);

    // The restock: 1,000 units x 100 covers all 300 in one batch.
    await pool.query("update inventory_levels set available = 1000, seen_at = now() where shop_id = $1", [shopId]);
    await requestAlertRun(pool, shopId, variantGid(1), "inventory_webhook");

    // Some alerts out, then the sink holds the next ones in flight while the database goes away
    // under them: their marks are the ones that cannot be written.
    await waitFor("the first alerts to reach the sink", async () => (sink.messages.length >= SIGNUPS / 5 ? true : undefined), 60_000);
    let release = () => undefined as void;
    sink.hold.until = new Promise<void>((resolve) => (release = resolve));
    await waitFor("sends in flight, held by the sink", async () => (sink.hold.held > 0 ? true : undefined), 30_000);
    const beforeOutage = sink.messages.length;
    await db.stop();
    const downSince = Date.now();
    sink.hold.until = undefined;
    release();

    // The API sees the outage: 503 with Retry-After and the error envelope, never a 500.
    const during = await waitFor(
      "the API to answer during the outage",
      async () => {
        const probe = await probeApi(web.origin, apiKey).catch(() => undefined);
        return probe && probe.status !== 200 ? probe : undefined;
      },
      30_000,
    );
    // Down long enough for every part of the worker to meet it (its batch, its pool, its cron).
    await waitFor("the outage to last", async () => (Date.now() - downSince >= OUTAGE_MS ? true : undefined), OUTAGE_MS + 5_000);
    const sentDuringOutage = sink.messages.length - beforeOutage;
    const workerAliveDuringOutage = worker.child.exitCode === null && worker.child.signalCode === null;
    await db.start();

    const after = await waitFor(
      "the API to answer 200 again",
      async () => {
        const probe = await probeApi(web.origin, apiKey).catch(() => undefined);
        return probe?.status === 200 ? probe : undefined;
      },
      30_000,
    );
    const finished = await waitFor(
      "every signup to be alerted",
      async () => {
        if (worker.child.exitCode !== null || worker.child.signalCode !== null) return false;
        const { rows } = await pool.query<{ n: number }>("select count(*)::int as n from bis_ledger where shop_id = $1 and status = 'sent'", [shopId]).catch(() => ({ rows: [{ n: 0 }] }));
        return rows[0]?.n === SIGNUPS ? true : undefined;
      },
      60_000,
    ).catch((error: unknown) => String(error));

    const distinct = new Set(sink.messages.map((m) => m.to)).size;
    const twice = recipientsTwice(sink);
    console.log(
      `[db outage] ${beforeOutage} alerts before the outage, ${sentDuringOutage} while the database was away; ` +
        `API during: ${during.status} (Retry-After ${String(during.retryAfter)}), after: ${after.status}; ` +
        `worker ${workerAliveDuringOutage ? "alive" : "exited"} during, ${worker.child.exitCode === null ? "alive" : `exited ${String(worker.child.exitCode)}`} after; ` +
        `${distinct} of ${SIGNUPS} customers alerted, ${twice} twice`,
    );
    expect(during.status).toBe(503);
    expect(Number(during.retryAfter)).toBeGreaterThan(0);
    expect(during.body).toEqual({ errors: [expect.any(String)] });
    expect(workerAliveDuringOutage).toBe(true);
    expect(finished).toBe(true);
    // The same process finished the run: never restarted (the test starts one worker only).
    expect(worker.child.pid).toBe(workerPid);
    expect(worker.child.exitCode).toBeNull();
    expect(distinct).toBe(SIGNUPS);
    expect(twice).toBeLessThanOrEqual(SEND_CONCURRENCY);
    const { rows: notified } = await pool.query<{ n: number }>("select count(*)::int as n from bis_signups where shop_id = $1 and status = 'notified'", [shopId]);
    expect(notified[0]?.n).toBe(SIGNUPS);

    // It exits on a signal, and only then.
    worker.child.kill("SIGTERM");
    web.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  });
});
