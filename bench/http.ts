/**
 * `npm run bench:http`: the action path (real HTTP layer, dispatcher, auth + rate limit in
 * PostgreSQL, then the read) against a bare fastify route doing the same read with one SELECT,
 * on the same database and the same pool size. The two sides run interleaved (bench/rounds.ts):
 * BENCH_ROUNDS rounds, each measuring both, the baseline first in odd rounds and the action path
 * first in even ones, each side in a server process started fresh for it. Target: the median over
 * the rounds of the action path's share of the baseline's throughput in the same round >= 50%.
 *
 * Environment:
 *   DATABASE_URL        a database to use as is (migrated, a shop and key added); otherwise a
 *                       scratch database on postgres://postgres@127.0.0.1:5432 (dropped at the
 *                       end), otherwise the embedded server under .data/bench
 *   BENCH_LOCAL_PG_URL  the local server tried second (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_ROUNDS        rounds (default 5)
 *   BENCH_DURATION      seconds measured per side per round (default 10), after a 2 s warm-up
 *   BENCH_CONNECTIONS   concurrent connections (default 50)
 *   BENCH_KEYS          API keys of the shop the action path is called with, one per connection
 *                       in turn (default 1: every request on one key)
 *   BENCH_EMBEDDED_PG_PORT  port of the embedded fallback (default 54349)
 *   BENCH_ONLY          `action` or `baseline` to measure one path only, once (for profiling)
 *   BENCH_SERVER_NODE_ARGS  extra node flags for the servers, e.g. `--cpu-prof --cpu-prof-dir=.data/prof`
 *   BENCH_RESULTS_DIR   where http.json goes (default bench/results)
 *   DB_POOL_SIZE, LOG_LEVEL, ...  passed to both servers, read as the service reads them
 *
 * Prints every round, the medians, and the verdict: the median share with its spread (min-max);
 * writes the figures to bench/results/http.json. Exits 1 when the median share is under the
 * target, or when any measured response was not 2xx or a request failed. Where the time goes:
 * when PostgreSQL runs on this machine, the table also shows the CPU time per request of the
 * server process, of the PostgreSQL backends serving it and of the load generator (from /proc,
 * Linux only).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs/promises";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon, { type Result } from "autocannon";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { createApiKey, createShop } from "../src/db/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { acquireDatabase, cleanup, onCleanup, positiveIntEnv, quietPool, serviceNodeFlags } from "./lib.ts";
import { type Round, gate, median, percent, resultsFile, roundsFromEnv, runRounds, table } from "./rounds.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SERVER_SCRIPT = path.join(HERE, "http-server.ts");
const LISTENING_PREFIX = "BENCH_LISTENING ";
const PATH = "/api/v2/external/account/languages";
const WARMUP_SECONDS = 2;
const TARGET_RATIO = 0.5;

type Mode = "baseline" | "action";

const ROUNDS = roundsFromEnv();
const DURATION = positiveIntEnv("BENCH_DURATION", 10);
const CONNECTIONS = positiveIntEnv("BENCH_CONNECTIONS", 50);
const KEYS = positiveIntEnv("BENCH_KEYS", 1);
const POOL_SIZE = loadConfig(process.env).DB_POOL_SIZE;

// ---------------------------------------------------------------------------------------------
// Database (cleanup, scratch databases: bench/lib.ts)

async function prepare(url: string): Promise<{ shopId: string; apiKeys: string[] }> {
  const pool = quietPool(url, 2);
  try {
    await migrate(pool, createLogger("warn"));
    const shopId = await createShop(pool, "Bench Shop");
    const apiKeys: string[] = [];
    for (let i = 0; i < KEYS; i++) apiKeys.push((await createApiKey(pool, shopId)).apiKey);
    return { shopId, apiKeys };
  } finally {
    await pool.end();
  }
}

// ---------------------------------------------------------------------------------------------
// The server under test, in a child process

interface Server {
  origin: string;
  pid: number;
  stop(): Promise<void>;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

async function startServer(mode: Mode, env: Record<string, string>): Promise<Server> {
  // BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=.data/prof", to profile the servers.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...serviceNodeFlags(), ...nodeArgs, SERVER_SCRIPT, mode], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const stop = () => stopChild(child);
  onCleanup(stop);
  const lines = readline.createInterface({ input: child.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${mode} server did not start within 60 s`)), 60_000);
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`${mode} server exited before listening (code ${code}, signal ${signal})`));
    };
    child.once("exit", onExit);
    lines.on("line", (line) => {
      if (line.startsWith(LISTENING_PREFIX)) {
        clearTimeout(timer);
        child.off("exit", onExit);
        resolve(Number(line.slice(LISTENING_PREFIX.length)));
      } else {
        // The server's own log lines: relayed, never mistaken for the handshake.
        process.stderr.write(`[${mode}] ${line}\n`);
      }
    });
  });
  return { origin: `http://127.0.0.1:${port}`, pid: child.pid ?? 0, stop };
}

// ---------------------------------------------------------------------------------------------
// Load

interface Figures {
  requests_per_second: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  latency_average_ms: number;
  completed: number;
  non_2xx: number;
  errors: number;
  timeouts: number;
  status_codes: Record<string, number>;
  /** CPU time per completed request, in microseconds; null where it cannot be read. */
  cpu_us_per_request: { server: number | null; postgres: number | null; load_generator: number };
}

function figures(result: Result, cpu: CpuSpent): Figures {
  const completed = result["2xx"] + result.non2xx;
  const perRequest = (seconds: number) => Math.round((seconds * 1e6) / Math.max(1, completed));
  return {
    requests_per_second: result.requests.average,
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    latency_average_ms: result.latency.average,
    completed: result["2xx"] + result.non2xx,
    non_2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    status_codes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
    cpu_us_per_request: {
      server: cpu.server === undefined ? null : perRequest(cpu.server),
      postgres: cpu.postgres === undefined ? null : perRequest(cpu.postgres),
      load_generator: perRequest(cpu.loadGenerator),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// CPU accounting, from /proc: the server process, and the PostgreSQL backends of the benchmark
// database when they run on this machine.

/** USER_HZ: the unit of /proc/<pid>/stat times, 100 on every mainstream Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

async function procCpuSeconds(pid: number, expectedName?: string): Promise<number | undefined> {
  const text = await fs.readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (!text) return undefined;
  const name = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
  if (expectedName && name !== expectedName) return undefined;
  // After "(comm) ": state is field 3; utime and stime are fields 14 and 15.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

interface CpuSnapshot {
  server: number | undefined;
  /** CPU seconds by backend pid; undefined when PostgreSQL's processes are not visible here. */
  backends: Map<number, number> | undefined;
  loadGenerator: NodeJS.CpuUsage;
}

interface CpuSpent {
  server: number | undefined;
  postgres: number | undefined;
  loadGenerator: number;
}

async function cpuSnapshot(serverPid: number, db: pg.Client): Promise<CpuSnapshot> {
  const { rows } = await db.query<{ pid: number }>(
    "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'",
  );
  let backends: Map<number, number> | undefined = new Map();
  for (const { pid } of rows) {
    const seconds = await procCpuSeconds(pid, "postgres");
    if (seconds === undefined) {
      backends = undefined;
      break;
    }
    backends.set(pid, seconds);
  }
  return { server: await procCpuSeconds(serverPid), backends, loadGenerator: process.cpuUsage() };
}

function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): CpuSpent {
  let postgres: number | undefined;
  if (before.backends && after.backends && after.backends.size > 0) {
    postgres = 0;
    for (const [pid, seconds] of after.backends) postgres += seconds - (before.backends.get(pid) ?? 0);
  }
  const generator = process.cpuUsage(before.loadGenerator);
  return {
    server: before.server === undefined || after.server === undefined ? undefined : after.server - before.server,
    postgres,
    loadGenerator: (generator.user + generator.system) / 1e6,
  };
}

/** Request headers for each connection in turn: `X-Auth-Token` with the keys in rotation for the action path. */
function headersFor(mode: Mode, apiKeys: string[]): (connection: number) => Record<string, string> {
  return (connection): Record<string, string> => (mode === "action" ? { "x-auth-token": apiKeys[connection % apiKeys.length] ?? "" } : {});
}

async function measure(mode: Mode, databaseUrl: string, env: Record<string, string>, apiKeys: string[]): Promise<Figures> {
  const server = await startServer(mode, env);
  const db = new pg.Client({ connectionString: databaseUrl });
  // Ctrl-C drops the scratch database under this connection: that is no crash.
  db.on("error", () => undefined);
  await db.connect();
  try {
    const url = `${server.origin}${PATH}`;
    const headers = headersFor(mode, apiKeys);
    // One request first: a server that answers wrongly is a failed run, not a fast one.
    const probe = await fetch(url, { headers: headers(0) });
    const text = await probe.text();
    if (probe.status !== 200) throw new Error(`${mode} answered ${probe.status} to a probe: ${text}`);
    process.stderr.write(`${mode}: probe 200 ${text}\n`);
    process.stderr.write(`${mode}: warming up ${WARMUP_SECONDS} s, then measuring ${DURATION} s with ${CONNECTIONS} connections\n`);
    const load = (duration: number) => {
      let connection = 0;
      return autocannon({
        url,
        connections: CONNECTIONS,
        duration,
        headers: headers(0),
        setupClient: (client) => client.setHeaders(headers(connection++)),
      });
    };
    const warm = await load(WARMUP_SECONDS);
    if (warm.non2xx > 0 || warm.errors > 0) {
      process.stderr.write(`${mode}: warm-up saw ${warm.non2xx} non-2xx answers and ${warm.errors} errors\n`);
    }
    const before = await cpuSnapshot(server.pid, db);
    const result = await load(DURATION);
    const after = await cpuSnapshot(server.pid, db);
    return figures(result, cpuSpent(before, after));
  } finally {
    await db.end().catch(() => undefined);
    await server.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const throughputRatio = (r: Round<Mode, Figures>) => r.figures.action.requests_per_second / r.figures.baseline.requests_per_second;

async function main(): Promise<void> {
  const database = await acquireDatabase("bench_http");
  const { shopId, apiKeys } = await prepare(database.url);
  const env = { DATABASE_URL: database.url, BENCH_SHOP_ID: shopId };

  const only = process.env.BENCH_ONLY;
  if (only === "action" || only === "baseline") {
    // A profiling aid: one path, no comparison, no results file.
    const f = await measure(only, database.url, env, apiKeys);
    process.stdout.write(`${JSON.stringify({ [only]: f })}\n`);
    if (f.non_2xx > 0 || f.errors > 0) process.exitCode = 1;
    return;
  }
  if (only) throw new Error(`BENCH_ONLY must be action or baseline, got ${only}`);

  const rounds = await runRounds<Mode, Figures>({
    sides: ["baseline", "action"],
    rounds: ROUNDS,
    run: (mode, round) => {
      process.stderr.write(`round ${round}/${ROUNDS}: ${mode}\n`);
      return measure(mode, database.url, env, apiKeys);
    },
    onRound: (r) =>
      process.stderr.write(
        `round ${r.round}: baseline ${r.figures.baseline.requests_per_second.toFixed(0)} req/s, action ${r.figures.action.requests_per_second.toFixed(0)} req/s, ` +
          `${percent(throughputRatio(r))} (${r.order[0]} first; load ${r.load_1m.toFixed(2)})\n`,
      ),
  });

  const ratios = rounds.map(throughputRatio);
  // autocannon counts latency in whole milliseconds: a fast baseline can have a p99 of 0.
  const p99Ratios = rounds.flatMap((r) => (r.figures.baseline.latency_p99_ms > 0 ? [r.figures.action.latency_p99_ms / r.figures.baseline.latency_p99_ms] : []));
  const cpu = (us: number | null) => (us === null ? "n/a" : String(us));
  const row = (name: string, f: Figures) => [
    name,
    f.requests_per_second.toFixed(1),
    f.latency_p50_ms.toFixed(2),
    f.latency_p99_ms.toFixed(2),
    String(f.completed),
    String(f.non_2xx),
    String(f.errors),
    cpu(f.cpu_us_per_request.server),
    cpu(f.cpu_us_per_request.postgres),
    cpu(f.cpu_us_per_request.load_generator),
  ];
  const medianOf = (mode: Mode, pick: (f: Figures) => number) => median(rounds.map((r) => pick(r.figures[mode])));
  const nullableMedian = (mode: Mode, pick: (f: Figures) => number | null) => {
    const values = rounds.flatMap((r) => {
      const value = pick(r.figures[mode]);
      return value === null ? [] : [value];
    });
    return values.length === 0 ? "n/a" : median(values).toFixed(0);
  };
  const medianRow = (mode: Mode) => [
    `median ${mode}`,
    medianOf(mode, (f) => f.requests_per_second).toFixed(1),
    medianOf(mode, (f) => f.latency_p50_ms).toFixed(2),
    medianOf(mode, (f) => f.latency_p99_ms).toFixed(2),
    medianOf(mode, (f) => f.completed).toFixed(0),
    "",
    "",
    nullableMedian(mode, (f) => f.cpu_us_per_request.server),
    nullableMedian(mode, (f) => f.cpu_us_per_request.postgres),
    nullableMedian(mode, (f) => f.cpu_us_per_request.load_generator),
  ];
  const blank = ["", "", "", "", "", "", "", "", ""];
  const rows: string[][] = [["round / path", "req/s", "p50 ms", "p99 ms", "responses", "non-2xx", "errors", "server CPU", "PG CPU", "loadgen CPU"]];
  for (const r of rounds) {
    for (const mode of r.order) rows.push(row(`${r.round} ${mode}`, r.figures[mode]));
    const p99 = r.figures.baseline.latency_p99_ms > 0 ? `x${(r.figures.action.latency_p99_ms / r.figures.baseline.latency_p99_ms).toFixed(2)}` : "n/a";
    rows.push([`${r.round} action/baseline`, percent(throughputRatio(r)), "", p99, "", "", "", "", "", ""]);
  }
  rows.push(["", ...blank], medianRow("baseline"), medianRow("action"));
  process.stdout.write(
    `${[
      "",
      `GET ${PATH}: ${ROUNDS} rounds, sides interleaved (first side alternating), ${CONNECTIONS} connections, ${DURATION} s per side after ${WARMUP_SECONDS} s warm-up, DB pool ${POOL_SIZE},`,
      `${KEYS === 1 ? "one API key" : `${KEYS} API keys`}, ${database.description}, Node ${process.version}`,
      "",
      table(rows),
      "(CPU columns: microseconds of CPU time per response, of the server process, of the PostgreSQL backends serving it, and of autocannon)",
      p99Ratios.length > 0 ? `action p99 over baseline p99: median x${median(p99Ratios).toFixed(2)} (min x${Math.min(...p99Ratios).toFixed(2)}, max x${Math.max(...p99Ratios).toFixed(2)})` : "",
      "",
    ].join("\n")}`,
  );

  const failures = rounds.flatMap((r) =>
    (["baseline", "action"] as const).flatMap((name) => {
      const f = r.figures[name];
      return f.non_2xx > 0 || f.errors > 0
        ? [`round ${r.round} ${name}: ${f.non_2xx} non-2xx answers ${JSON.stringify(f.status_codes)}, ${f.errors} errors (${f.timeouts} timeouts)`]
        : [];
    }),
  );
  for (const failure of failures) process.stdout.write(`FAILED ${failure}\n`);
  const met = gate({ name: "action path's share of the baseline's throughput, per round", values: ratios, target: TARGET_RATIO, bound: "min" });

  const resultsPath = resultsFile("http.json");
  await fs.writeFile(
    resultsPath,
    `${JSON.stringify(
      {
        benchmark: "http",
        path: PATH,
        at: new Date().toISOString(),
        node: process.version,
        database: database.description,
        connections: CONNECTIONS,
        api_keys: KEYS,
        rounds: ROUNDS,
        duration_seconds: DURATION,
        warmup_seconds: WARMUP_SECONDS,
        db_pool_size: POOL_SIZE,
        per_round: rounds,
        throughput_ratio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
        p99_ratio: p99Ratios.length > 0 ? { median: median(p99Ratios), min: Math.min(...p99Ratios), max: Math.max(...p99Ratios) } : null,
        target_ratio: TARGET_RATIO,
        ok: met && failures.length === 0,
      },
      null,
      2,
    )}\n`,
  );
  process.stderr.write(`figures written to ${path.relative(process.cwd(), resultsPath)}\n`);
  if (failures.length > 0) process.exitCode = 1;
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench:http failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
