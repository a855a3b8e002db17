/**
 * `npm run bench:latency`: restock webhook to first alert received, with 100 variants restocking
 * at once. The service (startService: HTTP API and worker, production settings) runs in this
 * process against the platform emulator, which signs and posts its webhooks to the API; e-mail
 * goes to a local SMTP sink in this process. A shop connected to the emulator has BENCH_SIGNUPS
 * (10) waiting signups on each of 2 x BENCH_VARIANTS (100) sold-out variants (catalog mirrored by
 * a full sync). Three measurements, one after the other:
 *
 *   webhook   the emulator's admin `POST /admin/inventory` for variants 1..100, all sent at once:
 *             per variant, the time from that request's send to the sink receiving the first
 *             message for that variant (the emulator's signed webhook, HTTP intake, the worker's
 *             platform_webhook task, the alert run with its live stock read, the send).
 *   direct    the baseline of the pipeline without the webhook hop: variants 101..200 restocked
 *             on the emulator's store, their inventory webhooks recorded with `acceptWebhook`
 *             (what the HTTP intake calls) all at once; same timing.
 *   smtp      the floor: one message per variant, 100 at once, through nodemailer's pool (the
 *             channel's pool size) to the same sink; send to receipt.
 *
 * Prints p50, p99 and max of each and the ratios; writes bench/results/latency.json.
 * Environment: BENCH_VARIANTS (100), BENCH_SIGNUPS (10), SMTP_POOL_SIZE (5), DATABASE_URL or a
 * scratch database (bench/lib.ts).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import nodemailer from "nodemailer";
import { SMTPServer } from "smtp-server";
import { syncCatalog } from "../src/catalog/sync.ts";
import { loadConfig } from "../src/config.ts";
import { createShop } from "../src/db/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { startEmulator } from "../src/platform/emulator/index.ts";
import { startService } from "../src/runtime/service.ts";
import { acceptWebhook } from "../src/webhooks/intake.ts";
import { acquireDatabase, cleanup, onCleanup, positiveIntEnv, quietPool } from "./lib.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const VARIANTS = positiveIntEnv("BENCH_VARIANTS", 100);
const SIGNUPS = positiveIntEnv("BENCH_SIGNUPS", 10);
const POOL_SIZE = positiveIntEnv("SMTP_POOL_SIZE", 5);
const RESULTS_FILE = path.join(HERE, "results", "latency.json");
const SECRET = "bench-latency-secret-0123456789abcdef";
const out = (line = "") => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

/** The sink: the arrival time of the first message to each `v<legacy id>-...` recipient's variant. */
async function startSink() {
  const first = new Map<number, number>();
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    maxClients: 200,
    onData(stream, session, callback) {
      stream.on("data", () => undefined);
      stream.on("end", () => {
        const at = performance.now();
        received += 1;
        for (const rcpt of session.envelope.rcptTo) {
          const variant = Number(/^v(\d+)-/.exec(rcpt.address)?.[1]);
          if (Number.isInteger(variant) && !first.has(variant)) first.set(variant, at);
        }
        callback();
      });
    },
  });
  server.on("error", () => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}/?ignoreTLS=true`,
    first,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
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

  const config = loadConfig({
    ...process.env,
    DATABASE_URL: database.url,
    PORT: String(await freePort()),
    HOST: "127.0.0.1",
    SMTP_URL: sink.url,
    SMTP_POOL_SIZE: String(POOL_SIZE),
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    PLATFORM_API_SECRET: SECRET,
    SECRETS_KEY: randomBytes(32).toString("base64"),
  });
  const service = await startService(config, log, { web: true, worker: true, migrate: false, demo: false });
  onCleanup(() => service.stop());
  if (!service.url) throw new Error("the service is not listening");
  const emulator = await startEmulator({
    seed: { products: 2 * VARIANTS, variantsPerProduct: 1, customers: 1 },
    webhooks: { url: `${service.url}/webhooks/platform`, secret: SECRET },
  });
  onCleanup(() => emulator.close());

  // The shop: connected, every variant sold out everywhere, mirrored, signups waiting.
  const store = emulator.store;
  const locations = store.activeLocations();
  const location = locations[0];
  if (!location) throw new Error("the emulator has no active location");
  for (let index = 0; index < store.variants.length; index++) for (const l of locations) store.setAvailable(index, l, 0);
  const shopId = await createShop(admin, "Latency Bench Shop");
  await service.platform.connect(admin, shopId, { domain: emulator.shopDomain, graphqlUrl: emulator.graphqlUrl, accessToken: emulator.accessToken });
  await syncCatalog({ pool: admin, client: await service.platform.clientFor(admin, shopId), shopId, mode: "full", log });
  await admin.query("insert into bis_settings (shop_id, settings) values ($1, $2) on conflict (shop_id) do update set settings = excluded.settings", [
    shopId,
    JSON.stringify({ delivery: { batch_multiplier: 100, batch_interval_seconds: 3600 } }),
  ]);
  const variants = store.variants.slice(0, 2 * VARIANTS).map((v) => v.id);
  await admin.query(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
     select $1, 'gid://platform/ProductVariant/' || v, 'email', 'v' || v || '-' || k || '@example.com', true, now() - interval '1 day' + make_interval(secs => k)
     from unnest($2::bigint[]) v, generate_series(1, $3) k`,
    [shopId, variants, SIGNUPS],
  );
  await admin.query("analyze");
  const waiting = (await admin.query<{ n: number }>("select count(*)::int as n from bis_signups where shop_id = $1 and status = 'waiting'", [shopId])).rows[0]?.n;
  if (waiting !== 2 * VARIANTS * SIGNUPS) throw new Error(`expected ${2 * VARIANTS * SIGNUPS} waiting signups, found ${String(waiting)}`);

  const latenciesOf = (ids: number[], sentAt: Map<number, number>) => ids.map((id) => (sink.first.get(id) ?? Number.NaN) - (sentAt.get(id) ?? Number.NaN));

  // 1. The webhook path: the emulator's admin restock, all at once.
  err(`webhook: restocking ${VARIANTS} variants through the emulator`);
  const webhookIds = variants.slice(0, VARIANTS);
  const webhookSent = new Map<number, number>();
  await Promise.all(
    webhookIds.map(async (id) => {
      webhookSent.set(id, performance.now());
      const response = await fetch(`${emulator.origin}/admin/inventory`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ variant_id: id, available: 100, location_id: location.id }),
      });
      if (!response.ok) throw new Error(`POST /admin/inventory answered ${response.status}`);
      await response.arrayBuffer();
    }),
  );
  await waitUntil(() => webhookIds.every((id) => sink.first.has(id)), "a first alert for every webhook-restocked variant");
  const webhook = summary(latenciesOf(webhookIds, webhookSent));
  // Its remaining alerts are sent before the next measurement starts, so the two do not overlap.
  await waitUntil(() => sink.received() >= VARIANTS * SIGNUPS, "every alert of the webhook restock", 600_000);

  // 2. The direct path: the same restock recorded as the intake records it, without the HTTP hop.
  err(`direct: restocking ${VARIANTS} variants with acceptWebhook`);
  const directIds = variants.slice(VARIANTS, 2 * VARIANTS);
  const directSent = new Map<number, number>();
  await Promise.all(
    directIds.map(async (id) => {
      const index = store.variants.findIndex((v) => v.id === id);
      store.setAvailable(index, location, 100);
      directSent.set(id, performance.now());
      await acceptWebhook(admin, {
        shopDomain: emulator.shopDomain,
        topic: "inventory_levels/update",
        webhookId: randomUUID(),
        payload: { inventory_item_id: store.inventoryItemId(index), location_id: location.id, available: 100, updated_at: new Date().toISOString() },
      });
    }),
  );
  await waitUntil(() => directIds.every((id) => sink.first.has(id)), "a first alert for every directly restocked variant");
  const direct = summary(latenciesOf(directIds, directSent));
  await waitUntil(() => sink.received() >= 2 * VARIANTS * SIGNUPS, "every alert of the direct restock", 600_000);

  // 3. The floor: bare SMTP sends through a pool of the same size.
  err(`smtp: ${VARIANTS} messages through nodemailer's pool`);
  const transport = nodemailer.createTransport({ url: sink.url, pool: true, maxConnections: POOL_SIZE });
  onCleanup(async () => transport.close());
  await transport.verify();
  const smtpIds = Array.from({ length: VARIANTS }, (_, i) => 1_000_000_000 + i);
  const smtpSent = new Map<number, number>();
  await Promise.all(
    smtpIds.map(async (id) => {
      smtpSent.set(id, performance.now());
      await transport.sendMail({ from: "no-reply@localhost", to: `v${id}-1@example.com`, subject: "Back in stock", text: "It is back." });
    }),
  );
  await waitUntil(() => smtpIds.every((id) => sink.first.has(id)), "every bare SMTP message");
  const smtp = summary(latenciesOf(smtpIds, smtpSent));

  const load = os.loadavg().map((l) => l.toFixed(2)).join(" ");
  out();
  out(`database: ${database.description}; ${VARIANTS} variants restocked at once, ${SIGNUPS} signups each, worker concurrency ${config.WORKER_CONCURRENCY}, SMTP pool ${POOL_SIZE}, ${os.cpus().length} CPUs, load average ${load}`);
  out("path      variants   p50 ms   p99 ms   max ms   p50 vs direct  p99 vs direct");
  const row = (name: string, s: ReturnType<typeof summary>) =>
    `${name.padEnd(9)} ${String(s.count).padStart(8)} ${s.p50_ms.toFixed(0).padStart(8)} ${s.p99_ms.toFixed(0).padStart(8)} ${s.max_ms.toFixed(0).padStart(8)} ${`${(s.p50_ms / direct.p50_ms).toFixed(2)}x`.padStart(14)} ${`${(s.p99_ms / direct.p99_ms).toFixed(2)}x`.padStart(14)}`;
  out(row("webhook", webhook));
  out(row("direct", direct));
  out(row("smtp", smtp));
  out(
    `restock webhook to first alert received: p50 ${webhook.p50_ms.toFixed(0)} ms, p99 ${webhook.p99_ms.toFixed(0)} ms (${(webhook.p99_ms / direct.p99_ms).toFixed(2)}x the direct restock's p99, ${(webhook.p99_ms / smtp.p99_ms).toFixed(1)}x bare SMTP's)`,
  );
  await writeFile(
    RESULTS_FILE,
    `${JSON.stringify({ at: new Date().toISOString(), database: database.description, variants: VARIANTS, signups_per_variant: SIGNUPS, smtp_pool_size: POOL_SIZE, load_average: os.loadavg(), webhook, direct, smtp, messages_received: sink.received() }, null, 2)}\n`,
  );
  process.exitCode = [webhook, direct, smtp].every((s) => Number.isFinite(s.max_ms)) ? 0 : 1;
} finally {
  await cleanup();
}
