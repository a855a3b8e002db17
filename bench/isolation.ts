/**
 * `npm run bench:isolation`: does one hostile shop slow another down? Shop B makes steady API
 * reads (GET /back_in_stock/settings and GET /preorders/offers, alternately) at a fixed rate,
 * BENCH_B_RATE a second (4) for BENCH_SECONDS (30), each request's latency measured from its send
 * to its last byte; open loop: a request leaves on time whether or not the last one answered.
 * Two sides: beside an idle shop A (the baseline), and while shop A (bench/isolation-hostile.ts)
 * stores a costly template (a 99,000-character string doubled, split into characters, sorted and
 * joined: its PATCH may be refused, so the bench also writes it straight into message_templates,
 * which replaced bis_templates),
 * bulk-notifies 200 waiting signups whose alerts render it, and floods /mcp with JSON-RPC batches
 * of 64 tools/list requests.
 *
 * The service (HTTP API and worker, one process, production settings) runs in a child process
 * (bench/isolation-service.ts), the hostile client in another, against a scratch database
 * (bench/lib.ts), with an SMTP sink in this process. B's rate stays within the per-key budget
 * (RATE_LIMIT_POINTS a window, a read costing 1), each run with a key of its own.
 *
 * The two sides run interleaved (bench/rounds.ts): BENCH_ROUNDS rounds, each running both, the
 * baseline first in odd rounds and the hostile side first in even ones. Each hostile run has a
 * shop A of its own (seeded before it); after it, once no job is running, that shop is deleted,
 * so that neither its leftover work nor its retries run during the next side (the time spent
 * settling is printed). B has a key of its own in every run.
 *
 * Prints B's p50/p99/max in every run, the hostile over baseline p99 ratio per round with its
 * median and spread (min-max), and A's answers by status; writes bench/results/isolation.json
 * (BENCH_RESULTS_DIR to write it elsewhere). Target: the median over the rounds of B's p99 beside
 * the hostile tenant under BENCH_TARGET_P99_MS (100); exits non-zero above it or when any of B's
 * requests failed.
 * The attacker's client runs at nice BENCH_ATTACKER_NICE (19): on this machine, unlike a remote
 * attacker's, its own CPU time would otherwise count against B.
 * Environment: BENCH_ROUNDS (5), BENCH_B_RATE, BENCH_SECONDS, BENCH_MCP_LOOPS (4), BENCH_A_SIGNUPS (200),
 * BENCH_SETTLE_SECONDS (120: the longest wait for the hostile run's jobs to finish).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { SMTPServer } from "smtp-server";
import { DEFAULT_TEMPLATES } from "../src/back_in_stock/templates/default-templates.ts";
import { loadConfig } from "../src/config.ts";
import { createApiKey, createShop } from "../src/db/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { acquireDatabase, cleanup, onCleanup, positiveIntEnv, quietPool, seedOneVariantWithSignups, serviceNodeFlags } from "./lib.ts";
import { gate, median, resultsFile, roundsFromEnv, runRounds, spread, times } from "./rounds.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RATE = positiveIntEnv("BENCH_B_RATE", 4);
const SECONDS = positiveIntEnv("BENCH_SECONDS", 30);
const TARGET_P99_MS = positiveIntEnv("BENCH_TARGET_P99_MS", 100);
const A_SIGNUPS = positiveIntEnv("BENCH_A_SIGNUPS", 200);
const MCP_LOOPS = positiveIntEnv("BENCH_MCP_LOOPS", 4);
const ATTACKER_NICE = Math.min(19, positiveIntEnv("BENCH_ATTACKER_NICE", 19));
const ROUNDS = roundsFromEnv();
const SETTLE_MS = positiveIntEnv("BENCH_SETTLE_SECONDS", 120) * 1000;
const V2 = "/api/v2/external";
const B_PATHS = [`${V2}/back_in_stock/settings`, `${V2}/preorders/offers`];
const HOSTILE_TEMPLATE = `{% assign s = "${"x".repeat(99_000)}" %}{% assign s = s | append: s %}{{ s | split: "" | sort_natural | reverse | join: "" | size }}`;
const out = (line = "") => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startSink() {
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      stream.on("data", () => undefined);
      stream.on("end", () => {
        received += 1;
        callback();
      });
    },
  });
  server.on("error", () => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}/?ignoreTLS=true`,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A bench script as a child with the service's V8 flags; `next(prefix)` resolves with the rest of the next line starting with it. */
function child(script: string, env: Record<string, string>) {
  const proc: ChildProcess = spawn(process.execPath, [...serviceNodeFlags(), path.join(HERE, script)], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  onCleanup(async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGTERM");
    await Promise.race([exited, delay(30_000)]);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  });
  const lines = readline.createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  const next = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${script} exited with ${String(code)} before ${prefix.trim()}`));
      const listener = (line: string) => {
        if (!line.startsWith(prefix)) return;
        lines.off("line", listener);
        proc.off("exit", onExit);
        resolve(line.slice(prefix.length));
      };
      lines.on("line", listener);
      proc.once("exit", onExit);
    });
  return { proc, next };
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

/** Nearest-rank percentile (ms). */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

interface Run {
  label: string;
  round: number;
  requests: number;
  failed: Record<string, number>;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  load_average: number[];
  service_cpu_s: number;
  hostile?: { statuses: unknown; client_cpu_s: number; alerts_received: number; ledger: Awaited<ReturnType<typeof ledgerOf>>; settle_seconds: number; settled: boolean; busy: unknown[] };
}

/** B's reads, RATE a second for SECONDS, open loop; answers each one's latency and the failures by status. */
async function readsOfB(url: string, key: string): Promise<{ latencies: number[]; failed: Record<string, number> }> {
  const latencies: number[] = [];
  const failed: Record<string, number> = {};
  const pending: Promise<void>[] = [];
  const start = performance.now();
  const total = RATE * SECONDS;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await delay(wait);
    const target = `${url}${B_PATHS[i % B_PATHS.length] ?? ""}`;
    pending.push(
      (async () => {
        const sent = performance.now();
        try {
          const response = await fetch(target, { headers: { "x-auth-token": key } });
          await response.arrayBuffer();
          if (response.status === 200) latencies.push(performance.now() - sent);
          else failed[String(response.status)] = (failed[String(response.status)] ?? 0) + 1;
        } catch (error) {
          const reason = `error ${error instanceof Error ? error.message : String(error)}`;
          failed[reason] = (failed[reason] ?? 0) + 1;
        }
      })(),
    );
  }
  await Promise.all(pending);
  return { latencies, failed };
}

/** The shop's ledger rows by status, and by reason (the first line of the error) for those that did not go out. */
async function ledgerOf(pool: pg.Pool, shopId: string): Promise<{ by_status: Record<string, number>; reasons: Record<string, number> }> {
  const { rows } = await pool.query<{ status: string; n: number }>("select status, count(*)::int as n from bis_ledger where shop_id = $1 group by 1", [shopId]);
  const { rows: reasons } = await pool.query<{ reason: string; n: number }>(
    `select left(split_part(coalesce(last_error, '(none)'), E'\n', 1), 120) as reason, count(*)::int as n
     from bis_ledger where shop_id = $1 and status <> 'sent' group by 1 order by 2 desc`,
    [shopId],
  );
  return { by_status: Object.fromEntries(rows.map((r) => [r.status, r.n])), reasons: Object.fromEntries(reasons.map((r) => [r.reason, r.n])) };
}

try {
  const database = await acquireDatabase("bench_isolation");
  const pool = quietPool(database.url, 4);
  onCleanup(() => pool.end());
  await migrate(pool, createLogger("warn"));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-isolation-"));
  onCleanup(() => rm(dataDir, { recursive: true, force: true }));
  const sink = await startSink();
  onCleanup(() => sink.close());

  // Shop A, for each hostile run: one sold-out variant with A_SIGNUPS waiting signups, and the costly template stored as it is.
  const seedShopA = async (round: number) => {
    const shopA = await createShop(pool, `Hostile Shop A ${round}`);
    const keyA = (await createApiKey(pool, shopA)).apiKey;
    await pool.query("update shops set platform_domain = $2 where id = $1", [shopA, `isolation-a-${round}-${randomBytes(3).toString("hex")}.platform.local`]);
    await seedOneVariantWithSignups(pool, shopA, "Hostile Tee", "hostile-", A_SIGNUPS);
    await pool.query("insert into message_templates (shop_id, area, stage, locale, channel, subject, body) values ($1, 'back_in_stock', 'initial', 'en', 'email', $2, $3)", [
      shopA,
      DEFAULT_TEMPLATES.initial.en?.email.subject ?? "Back in stock",
      HOSTILE_TEMPLATE,
    ]);
    await pool.query("analyze");
    return { shopA, keyA };
  };
  // Shop B: a key per run, so that no run spends another's budget.
  const shopB = await createShop(pool, "Steady Shop B");
  const keyB = async () => (await createApiKey(pool, shopB)).apiKey;
  const warmKey = await keyB();
  const serviceEnv = {
    DATABASE_URL: database.url,
    PORT: String(await freePort()),
    HOST: "127.0.0.1",
    SMTP_URL: sink.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    PLATFORM_API_SECRET: "bench-isolation-secret-0123456789abcdef",
    SECRETS_KEY: randomBytes(32).toString("base64"),
  };
  const config = loadConfig({ ...process.env, ...serviceEnv });
  if (RATE * Math.min(SECONDS, config.RATE_LIMIT_WINDOW_SECONDS) > config.RATE_LIMIT_POINTS) {
    throw new Error(`BENCH_B_RATE ${RATE}/s would spend more than B's budget of ${config.RATE_LIMIT_POINTS} points in ${config.RATE_LIMIT_WINDOW_SECONDS} s`);
  }

  err("starting the service");
  const service = child("isolation-service.ts", serviceEnv);
  const url = await service.next("BENCH_SERVICE_READY ");
  // Warm-up, unmeasured: connections, the first compilation of each route.
  for (const p of B_PATHS) for (let i = 0; i < 5; i++) await (await fetch(`${url}${p}`, { headers: { "x-auth-token": warmKey } })).arrayBuffer();

  /**
   * After a hostile run: waits (at most BENCH_SETTLE_SECONDS) until no job is running or due, then
   * deletes shop A, so that its leftovers (retries included) cannot run during the next side.
   */
  const settle = async (shopA: string) => {
    const start = performance.now();
    let settled = false;
    while (performance.now() - start < SETTLE_MS) {
      const { rows } = await pool.query<{ busy: boolean }>(
        "select exists (select 1 from graphile_worker.jobs where locked_at is not null or (run_at <= now() and attempts < max_attempts)) as busy",
      );
      if (!rows[0]?.busy) {
        settled = true;
        break;
      }
      await delay(250);
    }
    let busy: unknown[] = [];
    if (!settled) {
      busy = (
        await pool.query(
          `select task_identifier, locked_at is not null as locked, run_at <= now() as due, attempts, max_attempts, left(last_error, 120) as last_error
           from graphile_worker.jobs where locked_at is not null or (run_at <= now() and attempts < max_attempts)`,
        )
      ).rows;
    }
    await pool.query("delete from shops where id = $1", [shopA]);
    await pool.query("vacuum analyze");
    return { settle_seconds: (performance.now() - start) / 1000, settled, busy };
  };

  const measure = async (label: "baseline" | "hostile", round: number): Promise<Run> => {
    const key = await keyB();
    const hostile = label === "hostile";
    const a = hostile ? await seedShopA(round) : undefined;
    err(`round ${round}, ${label}: B reads ${RATE}/s for ${SECONDS} s${hostile ? " while A attacks" : ", A idle"}`);
    const serviceCpu0 = await cpuSeconds(service.proc.pid);
    let attacker: ReturnType<typeof child> | undefined;
    let attackerCpu0 = 0;
    const received0 = sink.received();
    if (a) {
      attacker = child("isolation-hostile.ts", {
        BENCH_URL: url,
        BENCH_A_KEY: a.keyA,
        BENCH_A_VARIANT: "1",
        BENCH_A_TEMPLATE: HOSTILE_TEMPLATE,
        BENCH_MCP_LOOPS: String(MCP_LOOPS),
      });
      // The attacker's client runs on this machine, unlike a real one: at the lowest CPU priority,
      // its own parsing and sending takes as little as possible from the service it attacks.
      if (attacker.proc.pid !== undefined) os.setPriority(attacker.proc.pid, ATTACKER_NICE);
      await attacker.next("BENCH_HOSTILE_STARTED");
      attackerCpu0 = await cpuSeconds(attacker.proc.pid);
    }
    const { latencies, failed } = await readsOfB(url, key);
    const load = os.loadavg();
    const serviceCpu = (await cpuSeconds(service.proc.pid)) - serviceCpu0;
    let hostileReport: Run["hostile"];
    if (attacker && a) {
      const attackerCpu = (await cpuSeconds(attacker.proc.pid)) - attackerCpu0;
      const done = attacker.next("BENCH_HOSTILE_DONE ");
      attacker.proc.stdin?.end("stop\n");
      const statuses = JSON.parse(await done) as unknown;
      const alertsReceived = sink.received() - received0;
      const ledger = await ledgerOf(pool, a.shopA);
      const settled = await settle(a.shopA);
      if (!settled.settled) err(`round ${round}: jobs still running or due ${SETTLE_MS / 1000} s after the hostile run, shop A deleted anyway: ${JSON.stringify(settled.busy)}`);
      hostileReport = { statuses, client_cpu_s: attackerCpu, alerts_received: alertsReceived, ledger, ...settled };
    }
    return {
      label,
      round,
      requests: latencies.length + Object.values(failed).reduce((a, b) => a + b, 0),
      failed,
      p50_ms: percentile(latencies, 50),
      p99_ms: percentile(latencies, 99),
      max_ms: Math.max(...latencies),
      load_average: load,
      service_cpu_s: serviceCpu,
      ...(hostileReport ? { hostile: hostileReport } : {}),
    };
  };
  const rounds = await runRounds<"baseline" | "hostile", Run>({
    sides: ["baseline", "hostile"],
    rounds: ROUNDS,
    run: (label, round) => measure(label, round),
    onRound: (r) =>
      err(
        `round ${r.round} (${r.order[0]} first): B's p99 ${r.figures.baseline.p99_ms.toFixed(1)} ms beside an idle A, ${r.figures.hostile.p99_ms.toFixed(1)} ms beside the hostile A; load ${r.load_1m.toFixed(2)}`,
      ),
  });
  const runs = rounds.flatMap((r) => r.order.map((label) => r.figures[label]));
  const ratios = rounds.map((r) => r.figures.hostile.p99_ms / r.figures.baseline.p99_ms);
  const hostileP99 = rounds.map((r) => r.figures.hostile.p99_ms);
  out();
  out(
    `database: ${database.description}; service (web + worker) in its own process, ${os.cpus().length} CPUs, render threads ${config.RENDER_THREADS ?? "default"}, ` +
      `B reads ${RATE}/s for ${SECONDS} s (${B_PATHS.join(", ")}); ${ROUNDS} rounds, sides interleaved (first side alternating)`,
  );
  out("round run     requests  failed   p50 ms   p99 ms   max ms  service CPU s  load average");
  for (const r of runs) {
    const failures = Object.values(r.failed).reduce((a, b) => a + b, 0);
    out(
      `${String(r.round).padStart(5)} ${r.label.padEnd(9)} ${String(r.requests).padStart(7)} ${String(failures).padStart(7)} ${r.p50_ms.toFixed(1).padStart(8)} ${r.p99_ms.toFixed(1).padStart(8)} ${r.max_ms.toFixed(1).padStart(8)} ${r.service_cpu_s.toFixed(1).padStart(14)}  ${r.load_average.map((l) => l.toFixed(2)).join(" ")}`,
    );
  }
  for (const r of rounds) {
    const h = r.figures.hostile.hostile;
    if (!h) continue;
    out(
      `round ${r.round}, shop A's answers by status: ${JSON.stringify(h.statuses)}; its client (nice ${ATTACKER_NICE}) used ${h.client_cpu_s.toFixed(1)} CPU s; ` +
        `${h.alerts_received} alerts received by the sink during the run; ledger ${JSON.stringify(h.ledger.by_status)}, not sent by reason ${JSON.stringify(h.ledger.reasons)}; ` +
        `${h.settled ? "settled" : "NOT settled"} ${h.settle_seconds.toFixed(1)} s after it`,
    );
  }
  const clean = runs.every((r) => Object.keys(r.failed).length === 0);
  const ratioSpread = spread(ratios);
  out(
    `B's p99 beside the hostile tenant over beside an idle one, per round: median ${times(ratioSpread.median)} (min ${times(ratioSpread.min)}, max ${times(ratioSpread.max)}); ` +
      `medians: p99 ${median(hostileP99).toFixed(1)} vs ${median(rounds.map((r) => r.figures.baseline.p99_ms)).toFixed(1)} ms, ` +
      `p50 ${median(rounds.map((r) => r.figures.hostile.p50_ms)).toFixed(1)} vs ${median(rounds.map((r) => r.figures.baseline.p50_ms)).toFixed(1)} ms${clean ? "" : "; some of B's requests failed"}`,
  );
  const met = gate({ name: "B's p99 beside the hostile tenant, per round", values: hostileP99, target: TARGET_P99_MS, bound: "below", format: (ms) => `${ms.toFixed(1)} ms` });
  await writeFile(
    resultsFile("isolation.json"),
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        database: database.description,
        cpus: os.cpus().length,
        rounds: ROUNDS,
        b_rate_per_second: RATE,
        seconds: SECONDS,
        b_paths: B_PATHS,
        mcp_loops: MCP_LOOPS,
        attacker_nice: ATTACKER_NICE,
        a_signups: A_SIGNUPS,
        target_p99_ms: TARGET_P99_MS,
        runs,
        hostile_p99_ms: spread(hostileP99),
        p99_ratio: ratioSpread,
        met,
      },
      null,
      2,
    )}\n`,
  );
  if (!(met && clean)) process.exitCode = 1;
} finally {
  await cleanup();
}
