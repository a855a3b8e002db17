/**
 * `npm run bench:latency`: restock webhook to first alert received, with 100 variants restocking
 * at once. The service runs as the Procfile deploys it, production settings: its web process
 * (startService: the HTTP API, the webhook intake) in this process, its worker in a child process
 * (bench/service-worker.ts); the platform emulator runs in a child process of its own (bench/latency-emulator.ts),
 * signing and posting its webhooks to the API; e-mail goes to a local SMTP sink in a process of its own.
 * A shop connected to the emulator has BENCH_SIGNUPS (10) waiting signups on each of
 * 2 x BENCH_VARIANTS (100) sold-out variants, and of BENCH_WARMUP_VARIANTS (BENCH_VARIANTS) more
 * (catalog mirrored by a full sync). First, unmeasured, a restock of the warm-up variants through
 * the webhook path, a wave of the measured size (a deployed service is warm: its first jobs'
 * start-up is not a restock's latency, nor is the web process's first wave of a hundred webhooks,
 * whose arrivals spread over 450-530 ms against 10-40 ms once warm; with a warm-up of 10 the first
 * measured wave was always the worst). The service's pool has opened its connections before it
 * (startService opens them at start, as in production).
 * Then three sides, interleaved (bench/rounds.ts): BENCH_ROUNDS rounds, each running all three
 * once, the order rotated by one a round so each side goes first in turn; each round restocks
 * variants of its own (the emulator seeds 2 x BENCH_VARIANTS a round):
 *
 *   webhook   100 variants (1..100 in round 1) restocked at once on the emulator as a merchant's admin change
 *             does (Emulator.setInventory, what `POST /admin/inventory` calls: the level, then its
 *             webhook): per variant, the time from that change to the sink receiving the first
 *             message for that variant (the emulator's signed webhook, HTTP intake, the worker's
 *             platform_webhook task, the alert run, the send).
 *   direct    the pipeline without the webhook hop: 100 others (101..200 in round 1) restocked on the emulator's
 *             store, their inventory webhooks recorded with `acceptWebhook` (what the HTTP intake
 *             calls, on the service's pool as it does) all at once; same timing.
 *   smtp      the floor: one message per variant, 100 at once, through nodemailer's pool (the
 *             channel's pool size) to the same sink; send to receipt.
 *
 * The emulator process warms its own code up first (bench/latency-emulator.ts: its first restocks
 * and deliveries cost 150 ms and more on their own), so that none of that counts as the service's.
 * The emulator's cost bucket (its throttle) is left to refill before each of the first two, so
 * neither measures after the other drained it; its state before and after each side, and the
 * emulator's calls and throttled calls during it, are printed beside the figures.
 *
 * Prints p50, p99 and max of each side in every round, their ratios to the SMTP floor of the same
 * round (median and spread over the rounds), and where the time goes (medians over the rounds);
 * writes bench/results/latency.json (BENCH_RESULTS_DIR to write it elsewhere). Target: the webhook
 * side's p99 under BENCH_TARGET_P99_MS (1000) in every round, not at the median (the worst round is
 * printed); exits non-zero when a round misses it.
 *
 * A catalog sync beside a side (the crontab queues an incremental one every 10 minutes, a full one
 * nightly) is detected from the jobs table and printed beside the side's figures: it happens in
 * production. BENCH_CATALOG_SYNC=incremental|full queues one of that mode before each webhook and
 * direct side and starts the side once it runs, to measure that case on purpose.
 *
 * Environment: BENCH_ROUNDS (5), BENCH_VARIANTS (100), BENCH_SIGNUPS (10), BENCH_WARMUP_VARIANTS
 * (BENCH_VARIANTS), SMTP_POOL_SIZE (5), BENCH_BUCKET_WAIT_SECONDS (120), BENCH_CATALOG_SYNC
 * (unset), DATABASE_URL or a scratch database (bench/lib.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import nodemailer from "nodemailer";
import { enqueueCatalogSync } from "../src/catalog/schedule.ts";
import { syncCatalog } from "../src/catalog/sync.ts";
import { loadConfig } from "../src/config.ts";
import { createShop } from "../src/db/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { startService } from "../src/runtime/service.ts";
import { acceptWebhook, intakeConcurrencyOf } from "../src/webhooks/intake.ts";
import { acquireDatabase, cleanup, onCleanup, positiveIntEnv, quietPool, serviceNodeFlags, startChild, stopChild } from "./lib.ts";
import { gate, median, resultsFile, roundsFromEnv, runRounds, spread, times } from "./rounds.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const VARIANTS = positiveIntEnv("BENCH_VARIANTS", 100);
const SIGNUPS = positiveIntEnv("BENCH_SIGNUPS", 10);
const WARMUP = positiveIntEnv("BENCH_WARMUP_VARIANTS", VARIANTS);
const POOL_SIZE = positiveIntEnv("SMTP_POOL_SIZE", 5);
const TARGET_P99_MS = positiveIntEnv("BENCH_TARGET_P99_MS", 1000);
const BUCKET_WAIT_MS = positiveIntEnv("BENCH_BUCKET_WAIT_SECONDS", 120) * 1000;
/** BENCH_CATALOG_SYNC: "incremental" or "full", a catalog sync of that mode queued beside each side (unset: none but the crontab's). */
const SYNC_BESIDE = process.env.BENCH_CATALOG_SYNC === "incremental" || process.env.BENCH_CATALOG_SYNC === "full" ? process.env.BENCH_CATALOG_SYNC : undefined;
if (process.env.BENCH_CATALOG_SYNC && !SYNC_BESIDE) throw new Error("BENCH_CATALOG_SYNC is incremental or full");
const ROUNDS = roundsFromEnv();
const SECRET = "bench-latency-secret-0123456789abcdef";
const out = (line = "") => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The sink (bench/latency-sink.ts, its own process): the arrival time of the first message to
 * each `v<legacy id>-...` recipient's variant, in this process's performance.now() time.
 */
async function startSink() {
  const first = new Map<number, number>();
  let received = 0;
  const proc = spawn(process.execPath, [path.join(HERE, "latency-sink.ts")], { stdio: ["pipe", "pipe", "inherit"] });
  onCleanup(async () => {
    if (proc.exitCode === null) proc.kill("SIGKILL");
  });
  const lines = readline.createInterface({ input: proc.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    lines.on("line", (line) => {
      const [kind, a, b] = line.split(" ");
      if (kind === "BENCH_SINK_READY") resolve(Number(a));
      else if (kind === "FIRST") first.set(Number(a), Number(b) - performance.timeOrigin);
      else if (kind === "RECEIVED") received = Number(a);
    });
    proc.once("exit", (code) => reject(new Error(`latency-sink.ts exited with ${String(code)}`)));
  });
  return {
    url: `smtp://127.0.0.1:${port}/?ignoreTLS=true`,
    first,
    received: () => received,
    close: async () => {
      proc.stdin.end();
      if (proc.exitCode === null) await new Promise((resolve) => proc.once("exit", resolve));
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitUntilAsync(probe: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(5);
  }
}

async function waitUntil(probe: () => boolean, what: string, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Nearest-rank percentile of the latencies (ms). */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

function summary(latencies: number[]) {
  return { count: latencies.length, p50_ms: percentile(latencies, 50), p99_ms: percentile(latencies, 99), max_ms: Math.max(...latencies) };
}

interface EmulatorInfo {
  origin: string;
  graphqlUrl: string;
  accessToken: string;
  shopDomain: string;
  locationId: number;
  variants: { id: number; inventoryItemId: number }[];
}

interface EmulatorStats {
  requests: number;
  throttled: number;
  serverErrors: number;
  costSpent: number;
}

interface Bucket {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

/** The emulator in its own process; `ask` sends one command line and resolves with the answer after `prefix`. */
async function startEmulatorProcess(env: Record<string, string>) {
  const proc: ChildProcess = spawn(process.execPath, [...serviceNodeFlags(), path.join(HERE, "latency-emulator.ts")], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  onCleanup(async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.stdin?.end();
    await Promise.race([exited, delay(5000)]);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  });
  const lines = readline.createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  const next = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the emulator process exited with ${String(code)} before ${prefix.trim()}`));
      const listener = (line: string) => {
        if (!line.startsWith(prefix)) return;
        lines.off("line", listener);
        proc.off("exit", onExit);
        resolve(line.slice(prefix.length));
      };
      lines.on("line", listener);
      proc.once("exit", onExit);
    });
  const info = JSON.parse(await next("BENCH_EMULATOR ")) as EmulatorInfo;
  const ask = (command: string, prefix: string) => {
    const answer = next(prefix);
    proc.stdin?.write(`${command}\n`);
    return answer;
  };
  return {
    info,
    stats: async () => JSON.parse(await ask("stats", "BENCH_STATS ")) as EmulatorStats,
    restock: async (ids: number[], available: number) => void (await ask(`restock ${available} ${ids.join(",")}`, "BENCH_RESTOCKED")),
    /** Restocks as a merchant's admin change does (the webhooks follow); answers each id's change time on this process's clock. */
    restockWithWebhooks: async (ids: number[], available: number): Promise<Map<number, number>> => {
      const sentAt = JSON.parse(await ask(`restock-webhook ${available} ${ids.join(",")}`, "BENCH_RESTOCKED_AT ")) as Record<string, number>;
      return new Map(Object.entries(sentAt).map(([id, epochMs]) => [Number(id), epochMs - performance.timeOrigin]));
    },
  };
}

/** The cost bucket of the shop's token, from a one-point query's extensions.cost.throttleStatus. */
async function bucketOf(info: EmulatorInfo): Promise<Bucket> {
  const response = await fetch(info.graphqlUrl, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-access-token": info.accessToken },
    body: JSON.stringify({ query: "{ shop { name } }" }),
  });
  const body = (await response.json()) as { extensions?: { cost?: { throttleStatus?: Bucket } } };
  const status = body.extensions?.cost?.throttleStatus;
  if (!status) throw new Error(`the emulator's answer carries no throttle status (HTTP ${response.status})`);
  return status;
}

/** Waits for the bucket to be full again (it refills at restoreRate points a second). */
async function refilled(info: EmulatorInfo): Promise<Bucket> {
  const deadline = Date.now() + BUCKET_WAIT_MS;
  for (;;) {
    const bucket = await bucketOf(info);
    // A probe costs a point or so: "full" is within a couple of points of the maximum.
    if (bucket.currentlyAvailable >= bucket.maximumAvailable - 2) return bucket;
    if (Date.now() > deadline) throw new Error(`the emulator's cost bucket did not refill within ${BUCKET_WAIT_MS / 1000} s: ${bucket.currentlyAvailable} of ${bucket.maximumAvailable}`);
    await delay(Math.min(2000, ((bucket.maximumAvailable - bucket.currentlyAvailable) / bucket.restoreRate) * 1000));
  }
}

const bucketText = (b: Bucket) => `${b.currentlyAvailable}/${b.maximumAvailable}`;

try {
  const database = await acquireDatabase("bench_latency");
  const log = createLogger(process.env.LOG_LEVEL ?? "warn");
  const admin = quietPool(database.url, 4);
  onCleanup(() => admin.end());
  await migrate(admin, log);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-latency-"));
  onCleanup(() => rm(dataDir, { recursive: true, force: true }));
  const sink = await startSink();
  onCleanup(() => sink.close());

  // The service as the Procfile deploys it: the web process here (HTTP intake), the worker in a
  // process of its own (bench/service-worker.ts), with the same settings.
  const serviceEnv = {
    DATABASE_URL: database.url,
    SMTP_URL: sink.url,
    SMTP_POOL_SIZE: String(POOL_SIZE),
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    PLATFORM_API_SECRET: SECRET,
    SECRETS_KEY: randomBytes(32).toString("base64"),
  };
  const config = loadConfig({ ...process.env, ...serviceEnv, PORT: String(await freePort()), HOST: "127.0.0.1" });
  const service = await startService(config, log, { web: true, worker: false, migrate: false, demo: false });
  onCleanup(() => service.stop());
  // As a deployed service's is: every connection of the pool open before the first restock.
  await service.poolOpened;
  if (!service.url) throw new Error("the service is not listening");
  const worker = await startChild("service-worker.ts", serviceEnv, "BENCH_WORKER_READY");
  onCleanup(() => stopChild(worker.proc, "SIGTERM"));
  const emulator = await startEmulatorProcess({
    BENCH_VARIANTS: String(VARIANTS),
    BENCH_ROUNDS: String(ROUNDS),
    BENCH_WARMUP_VARIANTS: String(WARMUP),
    BENCH_WEBHOOK_URL: `${service.url}/webhooks/platform`,
    BENCH_WEBHOOK_SECRET: SECRET,
  });
  const info = emulator.info;

  // The shop: connected, every variant sold out everywhere (the emulator process saw to it), mirrored, signups waiting.
  const shopId = await createShop(admin, "Latency Bench Shop");
  await service.platform.connect(admin, shopId, { domain: info.shopDomain, graphqlUrl: info.graphqlUrl, accessToken: info.accessToken });
  await syncCatalog({ pool: admin, client: await service.platform.clientFor(admin, shopId), shopId, mode: "full", log });
  await admin.query("insert into bis_settings (shop_id, settings) values ($1, $2) on conflict (shop_id) do update set settings = excluded.settings", [
    shopId,
    JSON.stringify({ delivery: { batch_multiplier: 100, batch_interval_seconds: 3600 } }),
  ]);
  const variants = info.variants.map((v) => v.id);
  await admin.query(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
     select $1, 'gid://shopify/ProductVariant/' || v, 'email', 'v' || v || '-' || k || '@example.com', true, now() - interval '1 day' + make_interval(secs => k)
     from unnest($2::bigint[]) v, generate_series(1, $3) k`,
    [shopId, variants, SIGNUPS],
  );
  await admin.query("analyze");
  const waiting = (await admin.query<{ n: number }>("select count(*)::int as n from bis_signups where shop_id = $1 and status = 'waiting'", [shopId])).rows[0]?.n;
  if (waiting !== variants.length * SIGNUPS) throw new Error(`expected ${variants.length * SIGNUPS} waiting signups, found ${String(waiting)}`);

  const latenciesOf = (ids: number[], sentAt: Map<number, number>) => ids.map((id) => (sink.first.get(id) ?? Number.NaN) - (sentAt.get(id) ?? Number.NaN));
  const itemOf = new Map(info.variants.map((v) => [v.id, v.inventoryItemId]));
  const wallOf = (at: number) => performance.timeOrigin + at;

  /**
   * Where a side's time goes: per variant, from its restock's send to each step the database
   * recorded (the webhook row, its processing, the alert run, the first claim and mark), and to
   * the sink's first message; p50 and p99 of each, in ms. Database times are its clock's (same host).
   */
  const stepsOf = async (ids: number[], sentAt: Map<number, number>) => {
    const { rows } = await admin.query<{
      v: string;
      recorded: number | null;
      processed: number | null;
      run_started: number | null;
      run_trigger: string | null;
      claimed: number | null;
      marked: number | null;
    }>(
      `select v::text,
              (select r.trigger from bis_alert_runs r where r.shop_id = $1 and r.variant_id = 'gid://shopify/ProductVariant/' || v order by r.started_at limit 1) as run_trigger,
              (select extract(epoch from min(received_at)) * 1000 from webhook_deliveries w where w.shop_id = $1 and w.payload->>'inventory_item_id' = i::text) as recorded,
              (select extract(epoch from min(processed_at)) * 1000 from webhook_deliveries w where w.shop_id = $1 and w.payload->>'inventory_item_id' = i::text) as processed,
              (select extract(epoch from min(started_at)) * 1000 from bis_alert_runs r where r.shop_id = $1 and r.variant_id = 'gid://shopify/ProductVariant/' || v) as run_started,
              (select extract(epoch from min(l.created_at)) * 1000 from bis_ledger l join bis_signups s on s.id = l.signup_id
                where s.shop_id = $1 and s.variant_id = 'gid://shopify/ProductVariant/' || v) as claimed,
              (select extract(epoch from min(l.sent_at)) * 1000 from bis_ledger l join bis_signups s on s.id = l.signup_id
                where s.shop_id = $1 and s.variant_id = 'gid://shopify/ProductVariant/' || v) as marked
       from unnest($2::bigint[], $3::bigint[]) as t(v, i)`,
      [shopId, ids, ids.map((id) => itemOf.get(id) ?? 0)],
    );
    const step = (name: "recorded" | "processed" | "run_started" | "claimed" | "marked") => {
      const values = rows.map((r) => Number(r[name]) - wallOf(sentAt.get(Number(r.v)) ?? Number.NaN)).filter(Number.isFinite);
      return { p50_ms: percentile(values, 50), p99_ms: percentile(values, 99) };
    };
    const received = latenciesOf(ids, sentAt);
    // Who opened each variant's run: the webhook (its intake), or a catalog sync that mirrored the restock first.
    const openedBy: Record<string, { runs: number; p99_ms: number }> = {};
    for (const trigger of new Set(rows.map((r) => r.run_trigger ?? "none"))) {
      const of = rows.filter((r) => (r.run_trigger ?? "none") === trigger).map((r) => Number(r.v));
      openedBy[trigger] = { runs: of.length, p99_ms: percentile(latenciesOf(of, sentAt), 99) };
    }
    return {
      opened_by: openedBy,
      webhook_recorded: step("recorded"),
      webhook_processed: step("processed"),
      alert_run_started: step("run_started"),
      first_claimed: step("claimed"),
      first_received: { p50_ms: percentile(received, 50), p99_ms: percentile(received, 99) },
      first_marked_sent: step("marked"),
    };
  };

  const dbNow = async () => (await admin.query<{ now: Date }>("select clock_timestamp() as now")).rows[0]?.now ?? new Date();
  /**
   * The catalog syncs of the shop that ran during [from, to] (the jobs table's times): the crontab
   * queues an incremental one every 10 minutes, and a side that overlaps one is not the same
   * measurement (it happens in production, so it is printed, not hidden).
   */
  const syncsDuring = async (from: Date, to: Date) =>
    (
      await admin.query<{ mode: string; started_at: Date; finished_at: Date | null; overlap_ms: number }>(
        `select payload->>'mode' as mode, started_at, finished_at,
                extract(epoch from least(coalesce(finished_at, $3), $3) - greatest(started_at, $2)) * 1000 as overlap_ms
         from jobs where shop_id = $1 and kind = 'catalog_sync' and started_at is not null
           and started_at < $3 and coalesce(finished_at, $3) > $2 order by started_at`,
        [shopId, from, to],
      )
    ).rows.map((r) => ({ mode: r.mode, started_at: r.started_at.toISOString(), finished_at: r.finished_at?.toISOString() ?? null, overlap_ms: Math.round(Number(r.overlap_ms)) }));

  /** BENCH_CATALOG_SYNC: a catalog sync of that mode queued before each side and waited for to start, so the side runs beside it. */
  const startSyncBeside = async (name: string) => {
    if (!SYNC_BESIDE) return;
    const handle = await enqueueCatalogSync(admin, shopId, SYNC_BESIDE);
    if (!handle) throw new Error("a catalog sync of the shop is already queued or running");
    err(`${name}: a catalog sync (${SYNC_BESIDE}) queued (job ${handle.job_id}), waiting for it to start`);
    await waitUntilAsync(async () => {
      const { rows } = await admin.query<{ status: string }>("select status from jobs where id = $1", [handle.job_id]);
      return rows[0]?.status !== "queued";
    }, "the catalog sync to start");
  };

  /**
   * Runs one side from a full bucket; answers the bucket before and after, the emulator's calls
   * during it and the catalog syncs that overlapped it.
   */
  const fromFullBucket = async (name: string, side: () => Promise<void>) => {
    err(`${name}: waiting for the emulator's cost bucket to refill`);
    const before = await refilled(info);
    await startSyncBeside(name);
    const stats0 = await emulator.stats();
    const from = await dbNow();
    await side();
    const to = await dbNow();
    const stats1 = await emulator.stats();
    const after = await bucketOf(info);
    return {
      bucket_before: before,
      bucket_after: after,
      emulator_calls: stats1.requests - stats0.requests,
      throttled_calls: stats1.throttled - stats0.throttled,
      cost_spent: stats1.costSpent - stats0.costSpent,
      catalog_syncs: await syncsDuring(from, to),
    };
  };

  // 0. Warm-up, not measured: a restock of WARMUP other variants through the whole webhook path,
  // so that the worker process's first jobs (its code's first runs, the render pool's threads,
  // the SMTP pool's connections) are not counted as a restock's latency: a deployed worker is warm.
  const warmIds = variants.slice(2 * VARIANTS * ROUNDS, 2 * VARIANTS * ROUNDS + WARMUP);
  err(`warm-up: restocking ${WARMUP} other variants through the emulator`);
  await emulator.restockWithWebhooks(warmIds, 100);
  await waitUntil(() => sink.received() >= WARMUP * SIGNUPS, "every alert of the warm-up restock", 600_000);

  // The floor's transport: nodemailer's pool of the channel's size, open for every round.
  const transport = nodemailer.createTransport({ url: sink.url, pool: true, maxConnections: POOL_SIZE });
  onCleanup(async () => transport.close());
  await transport.verify();

  type SideName = "webhook" | "direct" | "smtp";
  interface SideResult {
    summary: ReturnType<typeof summary>;
    bucket?: Awaited<ReturnType<typeof fromFullBucket>>;
    steps?: Awaited<ReturnType<typeof stepsOf>>;
    load_1m: number;
  }
  /** Each round's variants: webhook ones, then direct ones, 2 x VARIANTS a round. */
  const idsOf = (round: number, set: 0 | 1) => variants.slice((2 * (round - 1) + set) * VARIANTS, (2 * (round - 1) + set + 1) * VARIANTS);

  const sides: Record<SideName, (round: number) => Promise<SideResult>> = {
    // The webhook path: restocks on the emulator, all at once, each sending its webhook.
    async webhook(round) {
      const ids = idsOf(round, 0);
      const sentAt = new Map<number, number>();
      const received0 = sink.received();
      const bucket = await fromFullBucket("webhook", async () => {
        err(`round ${round}, webhook: restocking ${VARIANTS} variants through the emulator`);
        for (const [id, at] of await emulator.restockWithWebhooks(ids, 100)) sentAt.set(id, at);
        await waitUntil(() => ids.every((id) => sink.first.has(id)), "a first alert for every webhook-restocked variant");
        // Its remaining alerts are sent before the next side starts, so that the two do not overlap.
        await waitUntil(() => sink.received() >= received0 + VARIANTS * SIGNUPS, "every alert of the webhook restock", 600_000);
      });
      return { summary: summary(latenciesOf(ids, sentAt)), bucket, steps: await stepsOf(ids, sentAt), load_1m: os.loadavg()[0] ?? Number.NaN };
    },
    // The direct path: the same restock recorded as the intake records it, without the HTTP hop.
    async direct(round) {
      const ids = idsOf(round, 1);
      const sentAt = new Map<number, number>();
      const received0 = sink.received();
      const bucket = await fromFullBucket("direct", async () => {
        err(`round ${round}, direct: restocking ${VARIANTS} variants with acceptWebhook`);
        await emulator.restock(ids, 100);
        await Promise.all(
          ids.map(async (id) => {
            sentAt.set(id, performance.now());
            // The service's pool, as the HTTP intake records them (the bench's own has 4 connections).
            await acceptWebhook(service.pool, {
              shopDomain: info.shopDomain,
              topic: "inventory_levels/update",
              webhookId: randomUUID(),
              payload: { inventory_item_id: itemOf.get(id), location_id: info.locationId, available: 100, updated_at: new Date().toISOString() },
            });
          }),
        );
        await waitUntil(() => ids.every((id) => sink.first.has(id)), "a first alert for every directly restocked variant");
        await waitUntil(() => sink.received() >= received0 + VARIANTS * SIGNUPS, "every alert of the direct restock", 600_000);
      });
      return { summary: summary(latenciesOf(ids, sentAt)), bucket, steps: await stepsOf(ids, sentAt), load_1m: os.loadavg()[0] ?? Number.NaN };
    },
    // The floor: bare SMTP sends through a pool of the same size.
    async smtp(round) {
      err(`round ${round}, smtp: ${VARIANTS} messages through nodemailer's pool`);
      const ids = Array.from({ length: VARIANTS }, (_, i) => 1_000_000_000 + (round - 1) * VARIANTS + i);
      const sentAt = new Map<number, number>();
      await Promise.all(
        ids.map(async (id) => {
          sentAt.set(id, performance.now());
          await transport.sendMail({ from: "no-reply@localhost", to: `v${id}-1@example.com`, subject: "Back in stock", text: "It is back." });
        }),
      );
      await waitUntil(() => ids.every((id) => sink.first.has(id)), "every bare SMTP message");
      return { summary: summary(latenciesOf(ids, sentAt)), load_1m: os.loadavg()[0] ?? Number.NaN };
    },
  };
  const rounds = await runRounds<SideName, SideResult>({
    sides: ["webhook", "direct", "smtp"],
    rounds: ROUNDS,
    run: (side, round) => sides[side](round),
    onRound: (r) =>
      err(
        `round ${r.round} (${r.order.join(", ")}): p99 webhook ${r.figures.webhook.summary.p99_ms.toFixed(0)} ms, direct ${r.figures.direct.summary.p99_ms.toFixed(0)} ms, smtp ${r.figures.smtp.summary.p99_ms.toFixed(0)} ms`,
      ),
  });

  const load = os.loadavg().map((l) => l.toFixed(2)).join(" ");
  out();
  out(
    `database: ${database.description}; ${VARIANTS} variants restocked at once, ${SIGNUPS} signups each, worker concurrency ${config.WORKER_CONCURRENCY}, SMTP pool ${POOL_SIZE}, ` +
      `web pool ${config.DB_POOL_SIZE} (${intakeConcurrencyOf(service.pool)} intake transactions at once), warm-up wave ${WARMUP}, ` +
      `${os.cpus().length} CPUs; the emulator in its own process; ${ROUNDS} rounds, sides interleaved (the first rotating)`,
  );
  out("round path      variants   p50 ms   p99 ms   max ms  p50 vs smtp  p99 vs smtp  bucket before -> after  emulator calls  throttled  load (1 min)  catalog sync beside");
  const syncCol = (b: SideResult["bucket"]) => {
    const syncs = b?.catalog_syncs ?? [];
    return syncs.length === 0 ? (b ? "none" : "") : syncs.map((x) => `${x.mode}, ${x.overlap_ms} ms of the side`).join("; ");
  };
  const bucketCols = (b: SideResult["bucket"]) =>
    b
      ? `${`${bucketText(b.bucket_before)} -> ${bucketText(b.bucket_after)}`.padStart(22)} ${String(b.emulator_calls).padStart(15)} ${String(b.throttled_calls).padStart(10)}`
      : `${"(no platform calls)".padStart(22)} ${"".padStart(15)} ${"".padStart(10)}`;
  for (const r of rounds) {
    const smtp = r.figures.smtp.summary;
    for (const name of r.order) {
      const { summary: s, bucket, load_1m } = r.figures[name];
      out(
        `${String(r.round).padStart(5)} ${name.padEnd(9)} ${String(s.count).padStart(8)} ${s.p50_ms.toFixed(0).padStart(8)} ${s.p99_ms.toFixed(0).padStart(8)} ${s.max_ms.toFixed(0).padStart(8)} ` +
          `${times(s.p50_ms / smtp.p50_ms).padStart(12)} ${times(s.p99_ms / smtp.p99_ms).padStart(12)}  ${bucketCols(bucket)}  ${load_1m.toFixed(2).padStart(12)}  ${syncCol(bucket)}`.trimEnd(),
      );
    }
  }
  const perRound = (pick: (r: (typeof rounds)[number]) => number) => spread(rounds.map(pick));
  const describe = (name: string, x: ReturnType<typeof spread>) => `${name} median ${times(x.median)} (min ${times(x.min)}, max ${times(x.max)})`;
  const webhookToSmtp = perRound((r) => r.figures.webhook.summary.p99_ms / r.figures.smtp.summary.p99_ms);
  const directToSmtp = perRound((r) => r.figures.direct.summary.p99_ms / r.figures.smtp.summary.p99_ms);
  const webhookToDirect = perRound((r) => r.figures.webhook.summary.p99_ms / r.figures.direct.summary.p99_ms);
  out(`p99 over the same round's, per round: ${describe("webhook/smtp", webhookToSmtp)}; ${describe("direct/smtp", directToSmtp)}; ${describe("webhook/direct", webhookToDirect)}`);
  out(
    `both the webhook and the direct side start from a full cost bucket (refilled first: ${rounds[0]?.figures.webhook.bucket?.bucket_before.restoreRate} points/s); ` +
      `the webhook side adds a median ${median(rounds.map((r) => r.figures.webhook.summary.p99_ms - r.figures.direct.summary.p99_ms)).toFixed(0)} ms at p99 to the direct one's of the same round`,
  );
  out("where the time goes, from each variant's restock (medians over the rounds of p50 / p99 ms; database clock for the steps it records):");
  out(`  ${"step".padEnd(20)} ${"webhook".padStart(15)} ${"direct".padStart(15)}`);
  const stepNames = (Object.keys(rounds[0]?.figures.webhook.steps ?? {}) as (keyof NonNullable<SideResult["steps"]>)[]).filter(
    (name): name is Exclude<typeof name, "opened_by"> => name !== "opened_by",
  );
  for (const name of stepNames) {
    const cell = (side: "webhook" | "direct") => {
      const steps = rounds.flatMap((r) => {
        const step = r.figures[side].steps?.[name];
        return step ? [step] : [];
      });
      return `${median(steps.map((x) => x.p50_ms)).toFixed(0)} / ${median(steps.map((x) => x.p99_ms)).toFixed(0)}`.padStart(15);
    };
    out(`  ${name.padEnd(20)} ${cell("webhook")} ${cell("direct")}`);
  }
  const webhookP99 = rounds.map((r) => r.figures.webhook.summary.p99_ms);
  out(`restock webhook to first alert received: median p50 ${median(rounds.map((r) => r.figures.webhook.summary.p50_ms)).toFixed(0)} ms; load average ${load}`);
  const directP99 = rounds.map((r) => r.figures.direct.summary.p99_ms);
  const worstDirect = Math.max(...directP99);
  out(`direct side (no webhook hop), p99 per round: worst ${worstDirect.toFixed(0)} ms (round ${directP99.indexOf(worstDirect) + 1}), median ${median(directP99).toFixed(0)} ms`);
  const besideSync = rounds.flatMap((r) =>
    (["webhook", "direct"] as const).flatMap((name) => {
      const syncs = r.figures[name].bucket?.catalog_syncs ?? [];
      const openedBy = Object.entries(r.figures[name].steps?.opened_by ?? {})
        .map(([trigger, o]) => `${o.runs} runs opened by ${trigger} (p99 ${o.p99_ms.toFixed(0)} ms)`)
        .join(", ");
      return syncs.length > 0
        ? [`round ${r.round} ${name} (p99 ${r.figures[name].summary.p99_ms.toFixed(0)} ms): ${syncs.map((x) => `${x.mode}, ${x.overlap_ms} ms of the side`).join("; ")}; ${openedBy}`]
        : [];
    }),
  );
  out(
    besideSync.length === 0
      ? `no side overlapped a catalog sync${SYNC_BESIDE ? ` (BENCH_CATALOG_SYNC=${SYNC_BESIDE} queued one before each: none was still running)` : ""}`
      : `sides that ran beside a catalog sync${SYNC_BESIDE ? ` (BENCH_CATALOG_SYNC=${SYNC_BESIDE})` : " (the crontab's, every 10 minutes: in production too)"}: ${besideSync.join(" | ")}`,
  );
  // Every round, not the median: a restock's first alert is promised within the target whenever it happens.
  const met = gate({
    name: "restock webhook to first alert received, p99 per round",
    values: webhookP99,
    target: TARGET_P99_MS,
    bound: "below",
    over: "every",
    format: (ms) => `${ms.toFixed(0)} ms`,
  });
  await writeFile(
    resultsFile("latency.json"),
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        database: database.description,
        variants: VARIANTS,
        signups_per_variant: SIGNUPS,
        smtp_pool_size: POOL_SIZE,
        emulator: "own process",
        load_average: os.loadavg(),
        target_webhook_p99_ms: TARGET_P99_MS,
        rounds: rounds.map((r) => ({ round: r.round, order: r.order, ...r.figures })),
        webhook_p99_ms: spread(webhookP99),
        direct_p99_ms: spread(directP99),
        catalog_sync_beside: SYNC_BESIDE ?? "crontab only",
        webhook_p99_vs_smtp: webhookToSmtp,
        direct_p99_vs_smtp: directToSmtp,
        webhook_p99_vs_direct: webhookToDirect,
        messages_received: sink.received(),
      },
      null,
      2,
    )}\n`,
  );
  const finite = rounds.every((r) => Object.values(r.figures).every((f) => Number.isFinite(f.summary.max_ms)));
  if (!(met && finite)) process.exitCode = 1;
} finally {
  await cleanup();
}
