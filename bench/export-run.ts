/**
 * One side of bench/export.ts, in its own process so its peak RSS is its own:
 *
 *   node bench/export-run.ts worker   the service's worker (every task, as `npm run worker`
 *                                     runs it): once started and settled it prints
 *                                     `BENCH_READY`, reads the export job's id from stdin and
 *                                     runs until that job has finished (the job is enqueued
 *                                     only then, so its time is not the worker's start-up)
 *   node bench/export-run.ts copy     COPY (BENCH_COPY_SQL) TO STDOUT (FORMAT csv, HEADER),
 *                                     read through pg-copy-streams and counted, not kept
 *
 * Prints `BENCH_RESULT {json}` on stdout.
 */
import { randomBytes } from "node:crypto";
import readline from "node:readline";
import pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/logger.ts";
import { PlatformRuntime } from "../src/platform/runtime.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { peakRssMb, quietPool } from "./lib.ts";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error("DATABASE_URL is required");
const mode = process.argv[2];

function report(value: Record<string, unknown>): void {
  process.stdout.write(`BENCH_RESULT ${JSON.stringify({ ...value, peak_rss_mb: peakRssMb() })}\n`);
}

if (mode === "worker") {
  const config = loadConfig({ ...process.env, DATABASE_URL: databaseUrl, PORT: "0", LOG_LEVEL: "warn" });
  const log = createLogger("warn");
  const pool = quietPool(databaseUrl, config.DB_POOL_SIZE);
  const platform = new PlatformRuntime({ secretsKey: randomBytes(32), webhookSecret: "bench", timeoutMs: 5000, log });
  const started = performance.now();
  const runner = await startWorker({ pool, log, config, platform }, { cron: false });
  // What a worker does once when it starts (its render threads, its first polls) is done before
  // the job is asked for.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  process.stdout.write("BENCH_READY\n");
  const lines = readline.createInterface({ input: process.stdin });
  const jobId = await new Promise<string>((resolve) => lines.once("line", (line) => resolve(line.trim())));
  lines.close();
  let status: string;
  for (;;) {
    const { rows } = await pool.query<{ status: string }>("select status from jobs where id = $1", [jobId]);
    status = rows[0]?.status ?? "missing";
    if (["completed", "failed", "cancelled", "missing"].includes(status)) break;
    // The export's time is its job's (started_at to finished_at), not this loop's: a slow poll
    // costs no accuracy, and a fast one would take CPU from the export it is waiting for.
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const seconds = (performance.now() - started) / 1000;
  await runner.stop();
  await pool.end();
  report({ status, wall_seconds: seconds });
} else if (mode === "copy") {
  const sql = process.env.BENCH_COPY_SQL;
  if (!sql) throw new Error("BENCH_COPY_SQL is required");
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = performance.now();
  const stream = client.query(copyTo(`copy (${sql}) to stdout (format csv, header)`));
  let bytes = 0;
  let newlines = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
  }
  const seconds = (performance.now() - started) / 1000;
  await client.end();
  report({ rows: newlines - 1, bytes, seconds });
} else {
  throw new Error("usage: node bench/export-run.ts worker|copy");
}
