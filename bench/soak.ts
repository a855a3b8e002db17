// `npm run soak [-- --minutes 3 --shops 50 --drain 300 --kill-every 20 --concurrency 16]`: the scale test (issue 10).
//
// 2 `web` + 2 `worker` processes (src/main.ts --web / --worker, as the Procfile runs them) on one
// dedicated database, the platform emulator (its webhooks signed and posted to the first web) and
// an SMTP sink, both in this process. A mixed load of many shops, each with its own API key, runs
// for --minutes while one worker is SIGKILLed every --kill-every seconds and started again. Then
// the load stops, the queue drains (at most --drain seconds), and the figures are printed:
// requests by status, 5xx, jobs lost, duplicate alerts against their bound, cron ticks enqueued
// twice, rate-limit excess. The exit code is 1 when a goal is missed.
//
// No baseline: its goals are absolute (no 5xx, no job lost, duplicates within their bound, ...),
// so there are no two sides to interleave round by round (bench/rounds.ts).
//
// Database: a scratch database created (and dropped) on TEST_DATABASE_URL's server, else on
// postgres@127.0.0.1:5432, else the embedded server under .data/soak.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { openSync, closeSync, mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type pg from "pg";
import { SMTPServer } from "smtp-server";
import { createRegistry } from "../src/action-registry.ts";
import { syncCatalog } from "../src/catalog/sync.ts";
import { createApiKey, createShop } from "../src/db/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { startEmulator } from "../src/platform/emulator/index.ts";
import { PlatformRuntime } from "../src/platform/runtime.ts";
import { type BenchDatabase, acquireDatabase, cleanup, onCleanup, quietPool, serviceNodeFlags } from "./lib.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const API = "/api/v2/external";
const WEBHOOK_SECRET = "soak-webhook-secret-0123456789abcdef";
const RATE_POINTS = 360;
const RATE_WINDOW_SECONDS = 60;

const { values: args } = parseArgs({
  options: {
    minutes: { type: "string", default: "3" },
    shops: { type: "string", default: "50" },
    drain: { type: "string", default: "300" },
    "kill-every": { type: "string", default: "20" },
    concurrency: { type: "string", default: "16" },
  },
});
function positive(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number, got ${raw}`);
  return value;
}
const MINUTES = positive("minutes", args.minutes);
const SHOPS = Math.max(2, Math.floor(positive("shops", args.shops)));
const DRAIN_SECONDS = positive("drain", args.drain);
const KILL_EVERY_MS = positive("kill-every", args["kill-every"]) * 1000;
const CONCURRENCY = Math.floor(positive("concurrency", args.concurrency));

const log = createLogger("warn");
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: readonly T[]): T => {
  const item = items[Math.floor(Math.random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
};

// ---------------------------------------------------------------- database

/** Its own database, never DATABASE_URL: the soak installs observation triggers in it. */
function acquireSoakDatabase(): Promise<BenchDatabase> {
  return acquireDatabase("soak", {
    useDatabaseUrl: false,
    adminUrl: process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    embeddedPort: Number(process.env.SOAK_EMBEDDED_PG_PORT ?? 54359),
    embeddedDataDir: path.join(ROOT, ".data/soak"),
  });
}

// Observation only, in the soak's own database: every graphile-worker job ever queued, and every
// enqueue of a crontab tick (a tick queued again into the same keyed row counts as well).
const OBSERVE_SQL = `
create table soak_seen_jobs (job_id bigint primary key, task text not null, job_key text, seen_at timestamptz not null default clock_timestamp());
create table soak_cron_enqueues (task text not null, args text not null, tick text, job_id bigint not null, at timestamptz not null default clock_timestamp());
create function soak_observe() returns trigger language plpgsql as $$
declare
  identifier text;
begin
  select t.identifier into identifier from graphile_worker._private_tasks t where t.id = new.task_id;
  if tg_op = 'INSERT' then
    insert into public.soak_seen_jobs (job_id, task, job_key) values (new.id, identifier, new.key) on conflict (job_id) do nothing;
  end if;
  if new.payload::jsonb ? '_cron' then
    insert into public.soak_cron_enqueues (task, args, tick, job_id)
    values (identifier, (new.payload::jsonb - '_cron')::text, new.payload::jsonb->'_cron'->>'ts', new.id);
  end if;
  return null;
end $$;
create trigger soak_observe_insert after insert on graphile_worker._private_jobs for each row execute function soak_observe();
create trigger soak_observe_update after update of payload on graphile_worker._private_jobs for each row execute function soak_observe();
`;

// ---------------------------------------------------------------- SMTP sink

interface Sink {
  url: string;
  received: number;
  byMessageId: Map<string, number>;
  close(): Promise<void>;
}

async function startSink(): Promise<Sink> {
  const byMessageId = new Map<string, number>();
  const sink = { url: "", received: 0, byMessageId, close: async () => undefined as void };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    maxClients: 200,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const head = (Buffer.concat(chunks).toString("utf8").split(/\r?\n\r?\n/)[0] ?? "").replace(/\r?\n[ \t]+/g, " ");
        const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith("message-id:"));
        const id = line?.slice("message-id:".length).trim() ?? `(none ${sink.received})`;
        byMessageId.set(id, (byMessageId.get(id) ?? 0) + 1);
        sink.received++;
        callback();
      });
    },
  });
  server.on("error", () => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  sink.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}?ignoreTLS=true`;
  sink.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return sink;
}

// ---------------------------------------------------------------- processes

interface Proc {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

const children = new Set<ChildProcess>();
onCleanup(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function spawnService(name: string, role: "--web" | "--worker", env: NodeJS.ProcessEnv, logDir: string): Proc {
  const fd = openSync(path.join(logDir, `${name}.log`), "a");
  const child = spawn(process.execPath, [...serviceNodeFlags(), path.join(ROOT, "src/main.ts"), role], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  children.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  return { name, child, exited };
}

async function stopGracefully(proc: Proc, timeoutMs = 20_000): Promise<number | null | "killed"> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return proc.child.exitCode;
  proc.child.kill("SIGTERM");
  const result = await Promise.race([proc.exited, sleep(timeoutMs).then(() => "timeout" as const)]);
  if (result !== "timeout") return result;
  proc.child.kill("SIGKILL");
  await proc.exited;
  return "killed";
}

async function waitHealthy(origin: string, proc: Proc, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited with ${String(proc.child.exitCode)} while starting`);
    const ok = await fetch(`${origin}/healthz`).then((r) => r.ok, () => false);
    if (ok) return;
    await sleep(250);
  }
  throw new Error(`${proc.name} was not healthy within ${timeoutMs} ms`);
}

// ---------------------------------------------------------------- load

interface Shop {
  shopId: string;
  key: string;
  variants: number[];
  offers: string[];
  hot: boolean;
  connected: boolean;
  /** Job ids its requests were answered with. */
  jobs: string[];
}

interface Tally {
  byStatus: Map<number, number>;
  byOp: Map<string, Map<number, number>>;
  fiveHundreds: { op: string; status: number; body: string }[];
  networkErrors: number;
  /** Accepted points per key and rate-limit window (client side: cost of each non-429 answer). */
  accepted: Map<string, number>;
  jobIds: Set<string>;
}

const tally: Tally = { byStatus: new Map(), byOp: new Map(), fiveHundreds: [], networkErrors: 0, accepted: new Map(), jobIds: new Set() };
const registry = createRegistry();

function costOf(method: string, relPath: string): number {
  const match = registry.match(method, relPath.split("?")[0] ?? relPath);
  return match?.action.kind === "write" ? 2 : 1;
}

async function call(origin: string, shop: Shop, op: string, method: string, relPath: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string> = { "x-auth-token": shop.key };
  if (body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(`${origin}${API}${relPath}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  } catch {
    tally.networkErrors++;
    return { status: 0, json: undefined };
  }
  const text = await response.text();
  const status = response.status;
  tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
  const perOp = tally.byOp.get(op) ?? new Map<number, number>();
  perOp.set(status, (perOp.get(status) ?? 0) + 1);
  tally.byOp.set(op, perOp);
  if (status >= 500) tally.fiveHundreds.push({ op, status, body: text.slice(0, 300) });
  const reset = response.headers.get("x-ratelimit-reset");
  if (reset !== null && status !== 429 && status !== 401) {
    // The window is PostgreSQL's fixed window; it ends `reset` seconds (rounded up) after the charge.
    const window = Math.round((Date.now() / 1000 + Number(reset)) / RATE_WINDOW_SECONDS) - 1;
    const id = `${shop.key.slice(0, 12)}|${window}`;
    tally.accepted.set(id, (tally.accepted.get(id) ?? 0) + costOf(method, relPath));
  }
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (json && typeof json === "object" && "job_id" in json && typeof json.job_id === "string") {
    tally.jobIds.add(json.job_id);
    shop.jobs.push(json.job_id);
  }
  return { status, json };
}

function idOf(json: unknown): string | undefined {
  return json && typeof json === "object" && "id" in json && typeof json.id === "string" ? json.id : undefined;
}

let contactSeq = 0;

/** One request of the mix, for a shop. */
async function oneRequest(origin: string, shop: Shop): Promise<void> {
  const r = Math.random();
  const variant = pick(shop.variants);
  if (r < 0.22) {
    await call(origin, shop, "signup.create", "POST", "/back_in_stock/signups", {
      variant_id: variant,
      channel: "email",
      email: `soak-${process.pid}-${++contactSeq}@example.com`,
      consent: true,
    });
  } else if (r < 0.27) {
    await call(origin, shop, "signups.bulk_notify", "POST", "/back_in_stock/signups/bulk_notify", { variant_id: String(variant) });
  } else if (r < 0.33) {
    const answer = await call(origin, shop, "offer.create", "POST", "/preorders/offers", { name: `Soak drop ${++contactSeq}` });
    const id = idOf(answer.json);
    if (id && answer.status < 300) shop.offers.push(id);
  } else if (r < 0.38 && shop.offers.length > 0) {
    await call(origin, shop, "offer.patch", "PATCH", `/preorders/offers/${pick(shop.offers)}`, { name: `Soak drop renamed ${++contactSeq}` });
  } else if (r < 0.41 && shop.offers.length > 0 && shop.connected) {
    await call(origin, shop, "offer.enable", "POST", `/preorders/offers/${pick(shop.offers)}/enable`);
  } else if (r < 0.44) {
    await call(origin, shop, "bis.export", "POST", "/back_in_stock/reports/export", { report: "summary", from: "2026-01-01", to: "2026-12-31" });
  } else if (r < 0.47) {
    await call(origin, shop, "preorders.export", "POST", "/preorders/reports/by_offer/export", {});
  } else if (r < 0.51) {
    await call(origin, shop, "template.patch", "PATCH", "/back_in_stock/templates/initial/en", { email: { subject: `Back in stock (${++contactSeq % 7})` } });
  } else if (r < 0.62) {
    await call(origin, shop, "signups.list", "GET", "/back_in_stock/signups?per_page=20");
  } else if (r < 0.72) {
    await call(origin, shop, "offers.list", "GET", "/preorders/offers?per_page=20");
  } else if (r < 0.82) {
    await call(origin, shop, "reports.summary", "GET", "/back_in_stock/reports/summary?from=2026-01-01&to=2026-12-31");
  } else if (r < 0.9 && shop.jobs.length > 0) {
    await call(origin, shop, "job.get", "GET", `/jobs/${pick(shop.jobs.slice(-20))}`);
  } else {
    await call(origin, shop, "settings.get", "GET", "/back_in_stock/settings");
  }
}

// ---------------------------------------------------------------- main

async function count(pool: pg.Pool, sql: string, values: unknown[] = []): Promise<number> {
  const { rows } = await pool.query<{ n: string | number | null }>(sql, values);
  return Number(rows[0]?.n ?? 0);
}

async function main(): Promise<number> {
  const started = Date.now();
  const db = await acquireSoakDatabase();
  const pool = quietPool(db.url, 6);
  onCleanup(() => pool.end());
  await migrate(pool, log);
  await pool.query(OBSERVE_SQL);

  const logDir = mkdtempSync(path.join(os.tmpdir(), "soak-"));
  const dataDir = path.join(logDir, "data");
  const sink = await startSink();
  onCleanup(() => sink.close());

  const webPorts = [await freePort(), await freePort()];
  const origins = webPorts.map((p) => `http://127.0.0.1:${p}`);
  const emulator = await startEmulator({
    seed: { products: 12, variantsPerProduct: 2 },
    throttle: { maximumAvailable: 100_000, restoreRate: 10_000 },
    webhooks: { url: `${origins[0] ?? ""}/webhooks/platform`, secret: WEBHOOK_SECRET },
  });
  onCleanup(() => emulator.close());

  const secretsKey = randomBytes(32);
  const common: NodeJS.ProcessEnv = {
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    SMTP_URL: sink.url,
    SECRETS_KEY: secretsKey.toString("base64"),
    PLATFORM_API_SECRET: WEBHOOK_SECRET,
    RATE_LIMIT_POINTS: String(RATE_POINTS),
    RATE_LIMIT_WINDOW_SECONDS: String(RATE_WINDOW_SECONDS),
    // A killed worker's locks are freed by the next worker_reap tick (every minute) once it is silent this long.
    WORKER_HEARTBEAT_SECONDS: "2",
    WORKER_DEAD_AFTER_SECONDS: "6",
    SHUTDOWN_TIMEOUT_MS: "15000",
    DEVELOPER_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  };
  const webEnv = (port: number): NodeJS.ProcessEnv => ({ ...common, PORT: String(port), DB_POOL_SIZE: "8" });
  const workerEnv = (): NodeJS.ProcessEnv => ({ ...common, PORT: "0", DB_POOL_SIZE: "14", WORKER_CONCURRENCY: "3" });

  // Shops: the first is connected to the emulator (its catalog mirrored; restocks and orders arrive
  // as webhooks); the others get a small mirrored catalog written straight to the database.
  const platform = new PlatformRuntime({ secretsKey, webhookSecret: WEBHOOK_SECRET, timeoutMs: 10_000, log });
  const shops: Shop[] = [];
  for (let i = 0; i < SHOPS; i++) {
    const shopId = await createShop(pool, `Soak Shop ${i + 1}`);
    const { apiKey } = await createApiKey(pool, shopId);
    shops.push({ shopId, key: apiKey, variants: [], offers: [], hot: i > 0 && i <= 3, connected: i === 0, jobs: [] });
  }
  const connected = shops[0];
  if (!connected) throw new Error("no shop");
  await platform.connect(pool, connected.shopId, { domain: emulator.shopDomain, graphqlUrl: emulator.graphqlUrl, accessToken: emulator.accessToken });
  await syncCatalog({ pool, client: await platform.clientFor(pool, connected.shopId), shopId: connected.shopId, mode: "full", log });
  const { rows: mirrored } = await pool.query<{ legacy_id: string }>("select legacy_id::text from variants where shop_id = $1 order by legacy_id limit 16", [connected.shopId]);
  connected.variants = mirrored.map((v) => Number(v.legacy_id));
  if (connected.variants.length === 0) throw new Error("the emulator's catalog was not mirrored");
  for (const shop of shops.slice(1)) {
    for (let n = 101; n <= 106; n++) {
      const product = `gid://shopify/Product/${Math.ceil(n / 2)}`;
      await pool.query(
        "insert into products (shop_id, id, title, handle, status, platform_updated_at) values ($1, $2, $3, $4, 'ACTIVE', now()) on conflict (shop_id, id) do nothing",
        [shop.shopId, product, `Product ${n}`, `product-${n}`],
      );
      await pool.query(
        `insert into variants (shop_id, id, legacy_id, product_id, title, sku, price, inventory_policy, inventory_item_id, platform_updated_at)
         values ($1, $2, $3, $4, $5, $6, '10.00', 'DENY', $7, now())`,
        [shop.shopId, `gid://shopify/ProductVariant/${n}`, n, product, `Size ${n}`, `SKU-${n}`, `gid://shopify/InventoryItem/${n}`],
      );
      await pool.query(
        "insert into inventory_levels (shop_id, inventory_item_id, location_id, available, platform_updated_at) values ($1, $2, 'gid://shopify/Location/1', 0, now())",
        [shop.shopId, `gid://shopify/InventoryItem/${n}`],
      );
      shop.variants.push(n);
    }
  }

  const webs = webPorts.map((port, i) => spawnService(`web${i + 1}`, "--web", webEnv(port), logDir));
  const workers: Proc[] = [spawnService("worker1", "--worker", workerEnv(), logDir), spawnService("worker2", "--worker", workerEnv(), logDir)];
  await Promise.all(webs.map((proc, i) => waitHealthy(origins[i] ?? "", proc)));
  process.stdout.write(
    `soak: ${db.description}; ${SHOPS} shops (1 connected to the emulator, 3 hot keys); 2 web + 2 worker processes; ` +
      `${MINUTES} min of load at ${CONCURRENCY} concurrent clients, a worker SIGKILLed every ${KILL_EVERY_MS / 1000} s; logs in ${logDir}\n`,
  );

  const loadEnd = Date.now() + MINUTES * 60_000;
  const running = () => Date.now() < loadEnd;

  // Clients: each picks a shop (a quarter of the picks go to the three hot keys, to reach their budgets).
  const hot = shops.filter((s) => s.hot);
  const clients = Array.from({ length: CONCURRENCY }, async (_, c) => {
    while (running()) {
      const shop = Math.random() < 0.25 ? pick(hot) : pick(shops);
      await oneRequest(origins[c % origins.length] ?? "", shop);
    }
  });
  // A hot-key burst: reads on four connections, on the first hot key, through both webs, so the
  // key meets its budget in every window whatever the machine's speed.
  const burst = Array.from({ length: 4 }, async (_, c) => {
    const shop = hot[0];
    if (!shop) return;
    while (running()) await call(origins[c % 2] ?? "", shop, "burst.read", "GET", "/back_in_stock/settings");
  });

  // Platform events for the connected shop: restocks (0, then units) and orders, as webhooks.
  let webhookEvents = 0;
  const platformLoad = (async () => {
    while (running()) {
      const variant = pick(connected.variants);
      const post = (route: string, body: unknown) =>
        fetch(`${emulator.origin}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then(
          (r) => r.ok,
          () => false,
        );
      if (Math.random() < 0.6) {
        if (await post("/admin/inventory", { variant_id: variant, available: 0 })) webhookEvents++;
        await sleep(500);
        if (await post("/admin/inventory", { variant_id: variant, available: 3 + Math.floor(Math.random() * 5) })) webhookEvents++;
      } else if (await post("/admin/orders", { line_items: [{ variant_id: variant, quantity: 1 }], email: `buyer-${++contactSeq}@example.com` })) {
        webhookEvents++;
      }
      await sleep(1500);
    }
  })();

  // The killer: every KILL_EVERY_MS, SIGKILL one worker (alternating), note what it had in flight, start it again.
  const kills: { worker: string; inFlightJobs: number; pendingLedger: number; pendingPreorderNotifications: number }[] = [];
  const killer = (async () => {
    let which = 0;
    while (running()) {
      await sleep(Math.min(KILL_EVERY_MS, Math.max(0, loadEnd - Date.now())));
      if (!running()) break;
      const index = which++ % workers.length;
      const victim = workers[index];
      if (!victim?.child.pid) continue;
      const pid = victim.child.pid;
      victim.child.kill("SIGKILL");
      await victim.exited;
      const inFlightJobs = await count(
        pool,
        `select count(*) as n from graphile_worker._private_jobs j
         where j.locked_by in (select worker_id from worker_heartbeats where pid = $1)`,
        [pid],
      );
      // Claimed, not marked: what a killed sender may have handed to SMTP without recording it (all processes; an upper bound).
      const pendingLedger = await count(pool, "select count(*) as n from bis_ledger where status = 'pending'");
      const pendingPreorderNotifications = await count(
        pool,
        "select count(*) as n from preorder_notifications where status = 'pending'",
      ).catch(() => 0);
      kills.push({ worker: victim.name, inFlightJobs, pendingLedger, pendingPreorderNotifications });
      workers[index] = spawnService(victim.name, "--worker", workerEnv(), logDir);
      process.stdout.write(
        `  ${new Date().toISOString()} SIGKILL ${victim.name} (pid ${pid}): ${inFlightJobs} jobs locked, ${pendingLedger} alert sends claimed; restarted\n`,
      );
    }
  })();

  const progress = setInterval(() => {
    const total = [...tally.byStatus.values()].reduce((a, b) => a + b, 0);
    process.stdout.write(`  ${Math.round((Date.now() - started) / 1000)} s: ${total} requests, ${tally.fiveHundreds.length} 5xx, ${sink.received} messages\n`);
  }, 30_000);
  onCleanup(async () => clearInterval(progress));

  await Promise.all([...clients, ...burst, platformLoad, killer]);
  clearInterval(progress);
  const backlogAtStop = await count(pool, "select count(*) as n from graphile_worker.jobs where run_at <= now() and attempts < max_attempts");
  process.stdout.write(`load stopped after ${MINUTES} min with ${backlogAtStop} jobs runnable or running; draining (at most ${DRAIN_SECONDS} s)\n`);

  // Drain: every app job the load created terminal, and nothing runnable or locked in graphile-worker's queue.
  await emulator.webhooksSettled();
  const jobIds = [...tally.jobIds];
  const drainStart = Date.now();
  const drainDeadline = drainStart + DRAIN_SECONDS * 1000;
  let drained = false;
  while (Date.now() < drainDeadline) {
    const openApp = await count(pool, "select count(*) as n from jobs where id = any($1::uuid[]) and status in ('queued', 'running')", [jobIds]);
    const busy = await count(
      pool,
      `select count(*) as n from graphile_worker.jobs
       where locked_at is not null or (run_at <= now() and attempts < max_attempts)`,
    );
    if (openApp === 0 && busy === 0) {
      drained = true;
      break;
    }
    await sleep(1000);
  }
  const drainSeconds = Math.round((Date.now() - drainStart) / 1000);

  // Jobs: the app's (by status; lost = not terminal with nothing in the queue to run it) and every
  // graphile-worker job the run queued (gone = completed; lost = still locked by a dead worker).
  const { rows: appStatus } = await pool.query<{ status: string; n: number }>(
    "select status, count(*)::int as n from jobs where id = any($1::uuid[]) group by status order by status",
    [jobIds],
  );
  const lostApp = await count(
    pool,
    `select count(*) as n from jobs j where j.id = any($1::uuid[]) and j.status in ('queued', 'running')
     and not exists (select 1 from graphile_worker._private_jobs q where q.key = 'job:' || j.id)`,
    [jobIds],
  );
  const seen = await count(pool, "select count(*) as n from soak_seen_jobs");
  const { rows: queueState } = await pool.query<{ state: string; n: number }>(
    `select case
              when q.id is null then 'completed (gone from the queue)'
              when q.attempts >= q.max_attempts then 'failed permanently'
              when q.locked_at is not null and q.locked_by not in (select worker_id from worker_heartbeats) then 'LOST: locked by a dead worker'
              when q.locked_at is not null then 'running'
              when q.run_at > now() then 'queued for later (retry backoff, schedule)'
              else 'queued'
            end as state, count(*)::int as n
     from soak_seen_jobs s left join graphile_worker._private_jobs q on q.id = s.job_id
     group by 1 order by 1`,
  );
  const lostQueue = queueState.filter((r) => r.state.startsWith("LOST")).reduce((a, r) => a + r.n, 0);
  const { rows: failedTasks } = await pool.query<{ task: string; n: number; error: string | null }>(
    `select s.task, count(*)::int as n, max(q.last_error) as error from soak_seen_jobs s join graphile_worker._private_jobs q on q.id = s.job_id
     where q.attempts > 0 group by s.task order by n desc limit 8`,
  );

  // Cron: a (task, tick) enqueued more than once.
  const { rows: cron } = await pool.query<{ task: string; ticks: number; enqueues: number; twice: number }>(
    `select task, count(distinct (args, tick))::int as ticks, count(*)::int as enqueues,
            (count(*) - count(distinct (args, tick)))::int as twice
     from soak_cron_enqueues group by task order by task`,
  );
  const cronTwice = cron.reduce((a, r) => a + r.twice, 0);
  const { rows: known } = await pool.query<{ identifier: string; last_execution: Date | null }>(
    "select identifier, last_execution from graphile_worker._private_known_crontabs order by identifier",
  );

  // Duplicates: the same Message-ID received more than once.
  let duplicates = 0;
  for (const n of sink.byMessageId.values()) if (n > 1) duplicates += n - 1;
  const bound = kills.reduce((a, k) => a + k.pendingLedger + k.pendingPreorderNotifications, 0);

  // Rate limit: accepted points per key and window above the budget.
  let excess = 0;
  let maxAccepted = 0;
  for (const points of tally.accepted.values()) {
    maxAccepted = Math.max(maxAccepted, points);
    if (points > RATE_POINTS) excess += points - RATE_POINTS;
  }

  // Stop the service gracefully (each should exit 0).
  const exits = await Promise.all([...webs, ...workers].map(async (p) => `${p.name}=${String(await stopGracefully(p))}`));

  const total = [...tally.byStatus.values()].reduce((a, b) => a + b, 0);
  const statusLine = [...tally.byStatus].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}: ${n}`).join(", ");
  const out: string[] = [
    "",
    `== soak results (${MINUTES} min of load, ${SHOPS} shops, ${kills.length} worker SIGKILLs, drain ${drainSeconds} s${drained ? "" : ": a backlog was left at the deadline"}) ==`,
    `requests: ${total} (${(total / (MINUTES * 60)).toFixed(1)}/s); by status: ${statusLine}; network errors: ${tally.networkErrors}`,
    ...[...tally.byOp].sort().map(([op, m]) => `  ${op.padEnd(20)} ${[...m].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`).join(" ")}`),
    `5xx: ${tally.fiveHundreds.length} (goal 0)`,
    ...tally.fiveHundreds.slice(0, 5).map((f) => `  ${f.op} ${f.status} ${f.body}`),
    `app jobs created by the load: ${jobIds.length}; by status: ${appStatus.map((r) => `${r.status} ${r.n}`).join(", ") || "none"}`,
    `graphile-worker jobs queued during the run: ${seen}; ${queueState.map((r) => `${r.state} ${r.n}`).join(", ")}`,
    ...failedTasks.map((t) => `  retried ${t.task}: ${t.n}${t.error ? ` (last error: ${t.error.split("\n")[0]?.slice(0, 120) ?? ""})` : ""}`),
    `jobs lost: ${lostApp + lostQueue} (goal 0: ${lostApp} app jobs open with nothing queued to run them, ${lostQueue} queue jobs locked by a dead worker)`,
    `webhook events sent by the emulator: ${webhookEvents}; messages received by the SMTP sink: ${sink.received} (${sink.byMessageId.size} distinct)`,
    `duplicate alerts: ${duplicates} (bound: ${bound} sends claimed but unmarked at the kills: ${kills.map((k) => `${k.pendingLedger}+${k.pendingPreorderNotifications}`).join(", ")})`,
    `  jobs in flight in the killed workers: ${kills.map((k) => k.inFlightJobs).join(", ")}`,
    `cron ticks enqueued twice: ${cronTwice} (goal 0); ${cron.map((r) => `${r.task} ${r.ticks} ticks/${r.enqueues} enqueues`).join(", ")}`,
    `  known_crontabs: ${known.map((k) => `${k.identifier} @ ${k.last_execution?.toISOString() ?? "never"}`).join(", ")}`,
    `rate-limit excess: ${excess} points (goal 0); busiest key-window accepted ${maxAccepted} of ${RATE_POINTS} points; 429s: ${tally.byStatus.get(429) ?? 0}`,
    `process exits after SIGTERM: ${exits.join(", ")}`,
  ];
  const missed: string[] = [];
  if (tally.fiveHundreds.length > 0) missed.push("5xx");
  // A job still queued or running after the drain is a backlog (reported above), not a lost job.
  if (lostApp + lostQueue > 0) missed.push("jobs lost");
  if (duplicates > bound) missed.push("duplicate alerts above the bound");
  if (cronTwice > 0) missed.push("cron ticks twice");
  if (excess > 0) missed.push("rate-limit excess");
  out.push(missed.length === 0 ? "ALL GOALS MET" : `GOALS MISSED: ${missed.join(", ")}`, "");
  process.stdout.write(out.join("\n"));
  // The processes' logs are kept when a goal is missed (or SOAK_KEEP_LOGS=1).
  if (missed.length === 0 && process.env.SOAK_KEEP_LOGS !== "1") rmSync(logDir, { recursive: true, force: true });
  else process.stdout.write(`logs kept in ${logDir}\n`);
  return missed.length === 0 ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (error) {
  process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await cleanup();
}
process.exit(code);
