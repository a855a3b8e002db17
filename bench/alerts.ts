/**
 * `npm run bench:alerts`, two measurements in one run:
 *
 * 1. Alert throughput. A restock of one variant with 20,000 waiting signups (a multiplier high
 *    enough to alert them all in one batch), through the service's worker in its own process,
 *    to a local SMTP sink in this process: messages per second from the restock (the inventory
 *    webhook recorded, as the HTTP intake does) to the last message received by the sink. Beside
 *    it, the baseline: nodemailer's pool (same pool size) sending 20,000 pre-rendered messages
 *    of the same template to the same sink, from its own process. Target: >= 70% of the baseline.
 * 2. The reminder scan over 1,000,000 signups (one INSERT ... SELECT generate_series), 100,000
 *    of them alerted and awaiting their reminder, 1,000 due: the time of a whole scan (claim and
 *    send the due ones) and of its due query, and that query's EXPLAIN (ANALYZE) plan.
 *
 * Writes the figures to bench/results/alerts.json. Environment: BENCH_SIGNUPS (20000),
 * BENCH_REMINDER_SIGNUPS (1000000), SMTP_POOL_SIZE (5), DATABASE_URL or a scratch database
 * (see bench/lib.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { SMTPServer } from "smtp-server";
import { REMINDER_DUE_QUERY, scanReminders } from "../src/back_in_stock/alerts/reminders.ts";
import { loadConfig } from "../src/config.ts";
import { createShop } from "../src/db/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { PlatformRuntime } from "../src/platform/runtime.ts";
import { createChannels } from "../src/channels/index.ts";
import { acceptWebhook } from "../src/webhooks/intake.ts";
import { acquireDatabase, cleanup, onCleanup, positiveIntEnv, quietPool, serviceNodeFlags } from "./lib.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SIGNUPS = positiveIntEnv("BENCH_SIGNUPS", 20_000);
const REMINDER_SIGNUPS = positiveIntEnv("BENCH_REMINDER_SIGNUPS", 1_000_000);
const POOL_SIZE = positiveIntEnv("SMTP_POOL_SIZE", 5);
const RESULTS_FILE = path.join(HERE, "results", "alerts.json");
const cpuOf = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1e6;
const out = (line = "") => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

/** The SMTP sink: counts messages and distinct Message-IDs; `expect(n)` resolves when n have arrived. */
async function startSink() {
  let received = 0;
  const ids = new Set<string>();
  let target = Number.POSITIVE_INFINITY;
  let reached: (at: number) => void = () => undefined;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    maxClients: 100,
    onData(stream, _session, callback) {
      let head = "";
      stream.on("data", (chunk: Buffer) => {
        if (head.length < 4096) head += chunk.toString("latin1");
      });
      stream.on("end", () => {
        received += 1;
        const id = /^Message-ID:\s*(\S+)/im.exec(head)?.[1];
        if (id) ids.add(id);
        if (received === target) reached(performance.now());
        callback();
      });
    },
  });
  server.on("error", () => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}/?ignoreTLS=true`,
    stats: () => ({ received, distinct: ids.size }),
    /** Resets the counts; resolves with the time the n-th message arrives. */
    expect(n: number): Promise<number> {
      received = 0;
      ids.clear();
      target = n;
      return new Promise<number>((resolve) => {
        reached = resolve;
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Starts a bench script as a child with the service's V8 flags; resolves at the line starting with `ready`. */
function child(script: string, env: Record<string, string>, ready: string): Promise<{ proc: ChildProcess; lines: readline.Interface }> {
  const proc = spawn(process.execPath, [...serviceNodeFlags(), path.join(HERE, script)], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  onCleanup(async () => {
    if (proc.exitCode === null) proc.kill("SIGKILL");
  });
  const lines = readline.createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  return new Promise((resolve, reject) => {
    lines.on("line", (line) => {
      if (line.startsWith(ready)) resolve({ proc, lines });
    });
    proc.once("exit", (code) => reject(new Error(`${script} exited with ${String(code)} before ${ready}`)));
  });
}

function lineStartingWith(lines: readline.Interface, prefix: string): Promise<string> {
  return new Promise((resolve) => {
    lines.on("line", (line) => {
      if (line.startsWith(prefix)) resolve(line.slice(prefix.length));
    });
  });
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
async function cpuSeconds(pid: number | undefined): Promise<number> {
  try {
    const stat = await readFile(`/proc/${String(pid)}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

try {
  const database = await acquireDatabase("bench_alerts");
  const pool = quietPool(database.url, 4);
  onCleanup(() => pool.end());
  await migrate(pool, createLogger("warn"));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-alerts-"));
  onCleanup(() => rm(dataDir, { recursive: true, force: true }));
  const sink = await startSink();
  onCleanup(() => sink.close());

  // 1a. The baseline: the pool alone, pre-rendered messages.
  err(`baseline: rendering ${SIGNUPS} messages`);
  const baseline = await child("alerts-baseline.ts", { SMTP_URL: sink.url, SMTP_POOL_SIZE: String(POOL_SIZE), BENCH_MESSAGES: String(SIGNUPS) }, "BENCH_BASELINE_READY");
  const baselineDone = lineStartingWith(baseline.lines, "BENCH_BASELINE_DONE ");
  const baselineLast = sink.expect(SIGNUPS);
  const baselineCpu0 = await cpuSeconds(baseline.proc.pid);
  const sinkCpu0 = process.cpuUsage();
  const baselineStart = performance.now();
  baseline.proc.stdin?.write("go\n");
  const baselineSeconds = ((await baselineLast) - baselineStart) / 1000;
  const baselineCpu = (await cpuSeconds(baseline.proc.pid)) - baselineCpu0;
  const baselineSinkCpu = cpuOf(process.cpuUsage(sinkCpu0));
  const baselineReport = JSON.parse(await baselineDone) as { sent: number; failed: number };
  const baselineStats = sink.stats();

  // 1b. The pipeline: a restock webhook, the worker's alert run.
  const shopId = await createShop(pool, "Alerts Bench Shop");
  const domain = "alerts-bench.platform.local";
  await pool.query("update shops set platform_domain = $2 where id = $1", [shopId, domain]);
  await pool.query("insert into bis_settings (shop_id, settings) values ($1, $2)", [
    shopId,
    JSON.stringify({ delivery: { batch_multiplier: 100, batch_interval_seconds: 3600 } }),
  ]);
  await pool.query(
    "insert into products (shop_id, id, title, handle, status, platform_updated_at) values ($1, 'gid://platform/Product/1', 'Bench Tee', 'product-1', 'ACTIVE', now())",
    [shopId],
  );
  await pool.query(
    `insert into variants (shop_id, id, legacy_id, product_id, title, sku, price, inventory_policy, inventory_item_id, platform_updated_at)
     values ($1, 'gid://platform/ProductVariant/1', 1, 'gid://platform/Product/1', 'Size 1', 'SKU-1', 10, 'DENY', 'gid://platform/InventoryItem/1', now())`,
    [shopId],
  );
  await pool.query(
    "insert into inventory_levels (shop_id, inventory_item_id, location_id, available, platform_updated_at) values ($1, 'gid://platform/InventoryItem/1', 'gid://platform/Location/1', 0, now() - interval '1 hour')",
    [shopId],
  );
  await pool.query(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
     select $1, 'gid://platform/ProductVariant/1', 'email', 'alert-' || i || '@example.com', true, now() - interval '1 day' + make_interval(secs => i)
     from generate_series(1, $2) i`,
    [shopId, SIGNUPS],
  );
  await pool.query("analyze");
  const worker = await child(
    "alerts-worker.ts",
    {
      DATABASE_URL: database.url,
      SMTP_URL: sink.url,
      SMTP_POOL_SIZE: String(POOL_SIZE),
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      PLATFORM_API_SECRET: "bench-alerts-secret-0123456789abcdef",
    },
    "BENCH_WORKER_READY",
  );
  const pipelineLast = sink.expect(SIGNUPS);
  const workerCpu0 = await cpuSeconds(worker.proc.pid);
  const pipelineSinkCpu0 = process.cpuUsage();
  const restock = performance.now();
  await acceptWebhook(pool, {
    shopDomain: domain,
    topic: "inventory_levels/update",
    webhookId: randomUUID(),
    payload: { inventory_item_id: 1, location_id: 1, available: 1000, updated_at: new Date().toISOString() },
  });
  const pipelineSeconds = ((await pipelineLast) - restock) / 1000;
  const workerCpu = (await cpuSeconds(worker.proc.pid)) - workerCpu0;
  const pipelineSinkCpu = cpuOf(process.cpuUsage(pipelineSinkCpu0));
  const sentCount = async () => (await pool.query<{ n: number }>("select count(*)::int as n from bis_ledger where shop_id = $1 and status = 'sent'", [shopId])).rows[0]?.n ?? 0;
  await waitUntil(async () => (await sentCount()) === SIGNUPS, "every message marked sent");
  const markedSeconds = (performance.now() - restock) / 1000;
  const pipelineStats = sink.stats();
  worker.proc.kill("SIGTERM");

  const baselineRate = SIGNUPS / baselineSeconds;
  const pipelineRate = SIGNUPS / pipelineSeconds;
  const ratio = pipelineRate / baselineRate;

  // 2. The reminder scan over 1,000,000 signups.
  err(`reminders: generating ${REMINDER_SIGNUPS} signups`);
  const remindShop = await createShop(pool, "Reminder Bench Shop");
  // Its 100,000 initial alerts of the last two days count against the monthly quota: a plan above them (src/account/plans.ts).
  await pool.query("insert into account_settings (shop_id, plan) values ($1, 'scale')", [remindShop]);
  await pool.query("update shops set platform_domain = 'reminder-bench.platform.local' where id = $1", [remindShop]);
  await pool.query("insert into bis_settings (shop_id, settings) values ($1, $2)", [remindShop, JSON.stringify({ delivery: { reminder_delay_hours: 48 } })]);
  await pool.query("insert into bis_stage_settings (shop_id, stage, enabled) values ($1, 'reminder', true)", [remindShop]);
  await pool.query(
    "insert into products (shop_id, id, title, handle, status, platform_updated_at) values ($1, 'gid://platform/Product/1', 'Reminder Tee', 'reminder-tee', 'ACTIVE', now())",
    [remindShop],
  );
  await pool.query(
    `insert into variants (shop_id, id, legacy_id, product_id, title, sku, price, inventory_policy, inventory_item_id, platform_updated_at)
     select $1, 'gid://platform/ProductVariant/' || v, v, 'gid://platform/Product/1', 'Size ' || v, 'SKU-' || v, 10, 'DENY', 'gid://platform/InventoryItem/' || v, now()
     from generate_series(1, 1000) v`,
    [remindShop],
  );
  await pool.query(
    `insert into inventory_levels (shop_id, inventory_item_id, location_id, available, platform_updated_at)
     select $1, 'gid://platform/InventoryItem/' || v, 'gid://platform/Location/1', 5, now() from generate_series(1, 1000) v`,
    [remindShop],
  );
  const generateStart = performance.now();
  // Every 10th signup was alerted (its initial sent) within the last 47 hours; every 1,000th, 49 hours ago: due.
  await pool.query(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent, status, created_at, notified_at)
     select $1, 'gid://platform/ProductVariant/' || (1 + i % 1000), 'email', 'remind-' || i || '@example.com', true,
            case when i % 10 = 0 then 'notified' else 'waiting' end,
            now() - interval '30 days' + make_interval(secs => i),
            case when i % 1000 = 0 then now() - interval '49 hours'
                 when i % 10 = 0 then now() - make_interval(secs => (i % 169200)) end
     from generate_series(1, $2) i`,
    [remindShop, REMINDER_SIGNUPS],
  );
  await pool.query(
    `insert into bis_ledger (shop_id, signup_id, stage, status, attempts, sent_at)
     select shop_id, id, 'initial', 'sent', 1, notified_at from bis_signups where shop_id = $1 and status = 'notified'`,
    [remindShop],
  );
  await pool.query(
    "insert into bis_reminder_queue (signup_id, shop_id, initial_sent_at) select id, shop_id, notified_at from bis_signups where shop_id = $1 and status = 'notified'",
    [remindShop],
  );
  await pool.query("analyze bis_signups");
  await pool.query("analyze bis_reminder_queue");
  await pool.query("analyze bis_ledger");
  const generated = (performance.now() - generateStart) / 1000;
  const { rows: counts } = await pool.query<{ signups: number; queued: number; due: number }>(
    `select (select count(*) from bis_signups where shop_id = $1)::int as signups,
            (select count(*) from bis_reminder_queue where shop_id = $1)::int as queued,
            (select count(*) from bis_reminder_queue where shop_id = $1 and initial_sent_at <= now() - interval '48 hours')::int as due`,
    [remindShop],
  );
  const sizes = counts[0] ?? { signups: 0, queued: 0, due: 0 };

  const client = await pool.connect();
  let plan: string[];
  let dueQueryMs: number;
  try {
    await client.query("begin");
    const queryStart = performance.now();
    await client.query(REMINDER_DUE_QUERY, [remindShop, 48, 500]);
    dueQueryMs = performance.now() - queryStart;
    await client.query("rollback");
    await client.query("begin");
    const { rows } = await client.query<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${REMINDER_DUE_QUERY}`, [remindShop, 48, 500]);
    plan = rows.map((r) => r["QUERY PLAN"]);
    await client.query("rollback");
  } finally {
    client.release();
  }

  const config = loadConfig({ DATABASE_URL: database.url, SMTP_URL: sink.url, SMTP_POOL_SIZE: String(POOL_SIZE), DATA_DIR: dataDir, LOG_LEVEL: "warn" });
  const log = createLogger("warn");
  const channels = createChannels(config, log);
  onCleanup(() => channels.close());
  const platform = new PlatformRuntime({ secretsKey: randomBytes(32), webhookSecret: "bench-alerts-secret-0123456789abcdef", timeoutMs: 5000, log });
  const reminderLast = sink.expect(sizes.due);
  const scanStart = performance.now();
  const scan = await scanReminders({ pool, log, config, platform, channels });
  const scanMs = performance.now() - scanStart;
  await reminderLast;

  out();
  out(`database: ${database.description}`);
  out(`alerts: one restock of one variant, ${SIGNUPS} waiting signups (multiplier 100 x 1,000 units: one batch), SMTP sink in the bench process, pool of ${POOL_SIZE} connections`);
  out("mode       messages  received  distinct   seconds  messages/s  sender CPU s  sink CPU s");
  const row = (mode: string, seconds: number, stats: { received: number; distinct: number }, senderCpu: number, sinkCpu: number) =>
    `${mode.padEnd(9)} ${String(SIGNUPS).padStart(9)} ${String(stats.received).padStart(9)} ${String(stats.distinct).padStart(9)} ${seconds.toFixed(2).padStart(9)} ${(SIGNUPS / seconds).toFixed(0).padStart(11)} ${senderCpu.toFixed(1).padStart(13)} ${sinkCpu.toFixed(1).padStart(11)}`;
  out(row("baseline", baselineSeconds, baselineStats, baselineCpu, baselineSinkCpu));
  out(row("pipeline", pipelineSeconds, pipelineStats, workerCpu, pipelineSinkCpu));
  out(
    `pipeline (restock webhook to the last message received) reaches ${(ratio * 100).toFixed(1)}% of the baseline's rate (target >= 70%); all ${SIGNUPS} marked sent in the ledger ${markedSeconds.toFixed(2)} s after the restock`,
  );
  out();
  out(
    `reminder scan over ${sizes.signups.toLocaleString("en")} signups (generated in ${generated.toFixed(1)} s; ${sizes.queued.toLocaleString("en")} awaiting their reminder, ${sizes.due.toLocaleString("en")} due): ` +
      `${scanMs.toFixed(0)} ms for the whole scan (${scan.claimed} claimed, ${scan.sent.sent} sent), due query (first page of 500) ${dueQueryMs.toFixed(1)} ms`,
  );
  out("EXPLAIN (ANALYZE, BUFFERS) of the due query:");
  for (const line of plan) out(`  ${line}`);
  const usesIndex = plan.some((l) => l.includes("bis_reminder_queue_due"));
  await writeFile(
    RESULTS_FILE,
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        database: database.description,
        signups: SIGNUPS,
        smtp_pool_size: POOL_SIZE,
        baseline: { seconds: baselineSeconds, messages_per_second: baselineRate, sender_cpu_s: baselineCpu, sink_cpu_s: baselineSinkCpu, ...baselineReport },
        pipeline: { seconds: pipelineSeconds, messages_per_second: pipelineRate, marked_seconds: markedSeconds, sender_cpu_s: workerCpu, sink_cpu_s: pipelineSinkCpu, ...pipelineStats },
        ratio,
        reminder_scan: { ...sizes, scan_ms: scanMs, due_query_ms: dueQueryMs, claimed: scan.claimed, sent: scan.sent.sent, uses_index: usesIndex, plan },
      },
      null,
      2,
    )}\n`,
  );
  const ok = ratio >= 0.7 && pipelineStats.distinct === SIGNUPS && pipelineStats.received === SIGNUPS && usesIndex && scan.sent.sent === sizes.due;
  process.exitCode = ok ? 0 : 1;
} finally {
  await cleanup();
}
