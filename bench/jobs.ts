/**
 * `npm run bench:jobs`: jobs per second through the app's task layers beside raw graphile-worker,
 * in one process run, on one database, at one concurrency, with the same number of no-op jobs:
 *
 *   raw    graphile-worker's own `run` with a no-op task; jobs queued in bulk with `addJobs`
 *          (graphile_worker.add_jobs, 1,000 a call); the service's worker settings (completion batching).
 *   raw1   the same, each job queued with one `addJob` call (its enqueue rate is the per-job baseline).
 *   task   the app's task layer: declareTask/defineTask, `enqueue` (one add_job per job, payload
 *          checked by its schema), the service's worker (src/runtime/worker.ts startWorker: the
 *          TaskRegistry wrapper, which parses the payload again and builds the task context).
 *   row    raw graphile-worker whose no-op task records its end in a jobs row by hand (one
 *          prepared update per job, as defineJobTask's): the floor for any job layer that keeps a
 *          status row per job. Rows inserted and jobs queued in bulk.
 *   job    application jobs with handles: `enqueueJob` (a jobs row and its add_job in one
 *          transaction), `defineJobTask` whose run returns nothing: the row's end is written by
 *          graphile-worker's completion (the trigger of sql/103), no statement of the run's own.
 *   jobr   the same, each run returning a result: the run writes its end (one prepared update).
 *   job0   the job side with the console's run recorder off (startWorker recordAttempts: false,
 *          decision 0251): what the recorder costs is job against job0, in the same rounds.
 *
 * Each side, each round: enqueue every job with no worker running (timed: the enqueue rate), then
 * start the worker and time until graphile-worker's queue holds none of that side's jobs (the
 * drain rate, from enqueue-complete to queue-drained). Rounds interleave the sides (bench/rounds.ts):
 * each round runs every side once, the order rotated by one a round so each side goes first in
 * turn; the medians are reported. The target (issue 16): the app's layers (task, job) drain at >= 80% of raw, on the
 * median of the per-round ratios (each side's drain rate over raw's in the same round), printed
 * with its spread (min-max); jobr is reported beside them, not gated. The job side is also given against `row`, the same durable write
 * done by hand.
 *
 * Environment: BENCH_JOBS (20000), BENCH_ROUNDS (5: raw alone drained 1,900-3,000 jobs/s from
 * round to round on 2 cores), WORKER_CONCURRENCY (the service's default, 5),
 * DB_POOL_SIZE (20, both workers' pools), BENCH_ENQUEUE_PARALLEL (8 enqueues in flight for the
 * app's one-at-a-time enqueue), BENCH_ONLY (task|job, job bringing jobr and job0: raw, raw1 and row always run), DATABASE_URL or a scratch database
 * (bench/lib.ts). Writes bench/results/jobs.json (BENCH_RESULTS_DIR to write it elsewhere).
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Logger, type Runner, makeWorkerUtils, run } from "graphile-worker";
import type pg from "pg";
import { z } from "zod";
import { loadConfig } from "../src/config.ts";
import { defineJobTask } from "../src/core/job-task.ts";
import { declareJobTask, enqueueJobRow } from "../src/core/jobs.ts";
import { declareTask, defineTask, enqueue } from "../src/core/tasks.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { PlatformRuntime } from "../src/platform/runtime.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { acquireDatabase, cleanup, onCleanup, positiveIntEnv, quietPool } from "./lib.ts";
import { gate, median, orderOf, percent, resultsFile, roundsFromEnv } from "./rounds.ts";

const JOBS = positiveIntEnv("BENCH_JOBS", 20_000);
const ROUNDS = roundsFromEnv();
const PARALLEL = positiveIntEnv("BENCH_ENQUEUE_PARALLEL", 8);
const TARGET_SHARE = 0.8;
const out = (line = "") => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

type Side = "raw" | "raw1" | "row" | "task" | "job" | "job0" | "jobr";
const SIDES: readonly Side[] = (["raw", "raw1", "row", "task", "job", "job0", "jobr"] as const).filter(
  (s) => !process.env.BENCH_ONLY || s.startsWith("raw") || s === "row" || s === process.env.BENCH_ONLY || ((s === "jobr" || s === "job0") && process.env.BENCH_ONLY === "job"),
);

const RAW_TASK = "bench_raw_noop";
const ROW_TASK = "bench_raw_row";
const noopRef = declareTask({ name: "bench.task_noop", payload: z.object({ n: z.number().int() }) });
const noopTask = defineTask({ ...noopRef, run: () => Promise.resolve() });
const jobRef = declareJobTask({ name: "bench.job_noop" });
const jobTask = defineJobTask({ name: jobRef.name, run: () => Promise.resolve(null) });
// A job that returns a result writes its end itself (the trigger completes only those with nothing to record).
const resultJobRef = declareJobTask({ name: "bench.job_result" });
const resultJobTask = defineJobTask({ name: resultJobRef.name, run: () => Promise.resolve({ done: true }) });
const IDENTIFIER: Record<Side, string> = { raw: RAW_TASK, raw1: RAW_TASK, row: ROW_TASK, task: noopRef.name, job: jobRef.name, job0: jobRef.name, jobr: resultJobRef.name };

/** Runs `fn(i)` for i in [0, n) with `parallel` calls in flight. */
async function inParallel(n: number, parallel: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) {
        const i = next++;
        await fn(i);
      }
    }),
  );
}

async function waitDrained(pool: pg.Pool, identifier: string, timeoutMs = 1_800_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pool.query<{ left: boolean }>("select exists (select 1 from graphile_worker.jobs where task_identifier = $1) as left", [identifier]);
    if (!rows[0]?.left) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for the ${identifier} jobs to drain`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

try {
  const database = await acquireDatabase("bench_jobs");
  const config = loadConfig({ ...process.env, DATABASE_URL: database.url, LOG_LEVEL: process.env.LOG_LEVEL ?? "warn", DATA_DIR: path.join(os.tmpdir(), "bench-jobs") });
  const log = createLogger(config.LOG_LEVEL);
  const admin = quietPool(database.url, 2);
  onCleanup(() => admin.end());
  await migrate(admin, log);
  const enqueuePool = quietPool(database.url, PARALLEL);
  onCleanup(() => enqueuePool.end());
  const workerPool = quietPool(database.url, config.DB_POOL_SIZE);
  onCleanup(() => workerPool.end());
  const utils = await makeWorkerUtils({ pgPool: enqueuePool, logger: new Logger(() => () => undefined) });
  onCleanup(async () => {
    await utils.release();
  });
  await utils.migrate();
  const platform = new PlatformRuntime({ secretsKey: randomBytes(32), webhookSecret: "bench-jobs-secret-0123456789abcdef", timeoutMs: 5000, log });
  const concurrency = config.WORKER_CONCURRENCY;

  const enqueueSide: Record<Side, () => Promise<void>> = {
    async raw() {
      for (let start = 0; start < JOBS; start += 1000) {
        const count = Math.min(1000, JOBS - start);
        await utils.addJobs(Array.from({ length: count }, (_, k) => ({ identifier: RAW_TASK, payload: { n: start + k } })));
      }
    },
    raw1: () => inParallel(JOBS, PARALLEL, (i) => utils.addJob(RAW_TASK, { n: i })),
    async row() {
      for (let start = 0; start < JOBS; start += 1000) {
        const count = Math.min(1000, JOBS - start);
        const { rows } = await admin.query<{ id: string }>("insert into jobs (kind) select $1 from generate_series(1, $2) returning id", [ROW_TASK, count]);
        await utils.addJobs(rows.map((r) => ({ identifier: ROW_TASK, payload: { id: r.id }, jobKey: `job:${r.id}` })));
      }
    },
    task: () => inParallel(JOBS, PARALLEL, (i) => enqueue(enqueuePool, noopRef, { n: i })),
    job: () => inParallel(JOBS, PARALLEL, (i) => enqueueJobRow(enqueuePool, { shopId: null, task: jobRef, payload: { n: i } })),
    job0: () => inParallel(JOBS, PARALLEL, (i) => enqueueJobRow(enqueuePool, { shopId: null, task: jobRef, payload: { n: i } })),
    jobr: () => inParallel(JOBS, PARALLEL, (i) => enqueueJobRow(enqueuePool, { shopId: null, task: resultJobRef, payload: { n: i } })),
  };
  // The same worker settings as the service's (src/runtime/worker.ts): the ratio is the layer's.
  const startRaw = () =>
      run({
        pgPool: workerPool,
        concurrency,
        noHandleSignals: true,
        pollInterval: 2000,
        logger: new Logger(() => () => undefined),
        taskList: {
          [RAW_TASK]: () => undefined,
          [ROW_TASK]: async (payload) => {
            await workerPool.query({
              name: "bench_row_end",
              text: `update jobs set status = 'completed', attempts = 1, started_at = now(), result = 'null', finished_at = now(), updated_at = now()
                from (select set_config('synchronous_commit', 'off', true)) as async_commit
                where id = $1 and status in ('queued', 'running')`,
              values: [(payload as { id: string }).id],
            });
          },
        },
        preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      });
  const startAppWorker = (recordAttempts = true) => startWorker({ pool: workerPool, log, config, platform }, { extraTasks: [noopTask, jobTask, resultJobTask], recordAttempts });
  const startSide: Record<Side, () => Promise<Runner>> = {
    raw: startRaw,
    raw1: startRaw,
    row: startRaw,
    task: () => startAppWorker(),
    job: () => startAppWorker(),
    job0: () => startAppWorker(false),
    jobr: () => startAppWorker(),
  };

  const results: Record<Side, { enqueue: number[]; drain: number[] }> = { raw: { enqueue: [], drain: [] }, raw1: { enqueue: [], drain: [] }, row: { enqueue: [], drain: [] }, task: { enqueue: [], drain: [] }, job: { enqueue: [], drain: [] }, job0: { enqueue: [], drain: [] }, jobr: { enqueue: [], drain: [] } };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const side of orderOf(SIDES, round)) {
      const enqueueStart = performance.now();
      await enqueueSide[side]();
      const enqueueSeconds = (performance.now() - enqueueStart) / 1000;
      await admin.query("vacuum analyze graphile_worker._private_jobs, jobs").catch(() => undefined);
      const drainStart = performance.now();
      const runner = await startSide[side]();
      try {
        await waitDrained(admin, IDENTIFIER[side]);
      } finally {
        await runner.stop("bench round over");
      }
      const drainSeconds = (performance.now() - drainStart) / 1000;
      results[side].enqueue.push(JOBS / enqueueSeconds);
      results[side].drain.push(JOBS / drainSeconds);
      if (side === "job" || side === "job0" || side === "jobr" || side === "row") {
        const { rows } = await admin.query<{ n: number }>("select count(*)::int as n from jobs where kind = $1 and status = 'completed'", [IDENTIFIER[side]]);
        const completed = rows[0]?.n ?? 0;
        if (completed !== JOBS) throw new Error(`${side} side: ${completed} of ${JOBS} jobs rows completed`);
        await admin.query("delete from jobs where kind = $1", [IDENTIFIER[side]]);
      }
      err(`round ${round} ${side.padEnd(4)}: enqueue ${(JOBS / enqueueSeconds).toFixed(0)} jobs/s, drain ${(JOBS / drainSeconds).toFixed(0)} jobs/s (${drainSeconds.toFixed(2)} s)`);
    }
  }

  /** A side's drain rate over another's, round by round. */
  const perRound = (side: Side, against: Side) => results[side].drain.map((rate, i) => rate / (results[against].drain[i] ?? Number.NaN));
  const rawEnqueue = median(results.raw.enqueue);
  const load = os.loadavg().map((l) => l.toFixed(2)).join(" ");
  out();
  out(`database: ${database.description}; ${JOBS} no-op jobs per side per round, ${ROUNDS} rounds (median; sides interleaved, the first rotating), worker concurrency ${concurrency}, worker pool ${config.DB_POOL_SIZE}, ${os.cpus().length} CPUs, load average ${load}`);
  out("side   enqueue jobs/s  drain jobs/s  drain vs raw   enqueue                         worker");
  out("                                       (median of the per-round ratios)");
  const describe: Record<Side, [string, string]> = {
    raw: ["addJobs bulk (1,000 a call)", "graphile-worker run, no-op"],
    raw1: [`addJob one a call, ${PARALLEL} in flight`, "graphile-worker run, no-op"],
    row: ["rows + addJobs bulk", "graphile-worker run, 1 row update"],
    task: [`enqueue(), ${PARALLEL} in flight`, "startWorker + TaskRegistry"],
    job: [`enqueueJobRow(), ${PARALLEL} in flight`, "startWorker + defineJobTask, no result"],
    job0: [`enqueueJobRow(), ${PARALLEL} in flight`, "the same, the console's run recorder off"],
    jobr: [`enqueueJobRow(), ${PARALLEL} in flight`, "the same, each run returns a result"],
  };
  const summary: Record<string, unknown> = {};
  for (const side of SIDES) {
    const enqueueRate = median(results[side].enqueue);
    const drain = median(results[side].drain);
    const toRaw = perRound(side, "raw");
    summary[side] = { enqueue_jobs_per_s: enqueueRate, drain_jobs_per_s: drain, ratio_to_raw: median(toRaw), ratio_to_raw_per_round: toRaw, rounds: results[side] };
    out(
      `${side.padEnd(5)} ${enqueueRate.toFixed(0).padStart(15)} ${drain.toFixed(0).padStart(13)} ${percent(median(toRaw)).padStart(13)}   ${describe[side][0].padEnd(31)} ${describe[side][1]}`,
    );
  }
  const layers = SIDES.filter((s) => s === "task" || s === "job");
  out(`raw enqueue ${rawEnqueue.toFixed(0)} jobs/s in bulk`);
  const met = layers.map((s) => gate({ name: `${s}: drain rate over raw graphile-worker's, per round`, values: perRound(s, "raw"), target: TARGET_SHARE, bound: "min" }));
  if (SIDES.includes("job") && SIDES.includes("job0")) {
    const againstOff = perRound("job", "job0");
    out(`job against job0 (the console's run recorder's cost), per round: median ${percent(median(againstOff))} (min ${percent(Math.min(...againstOff))}, max ${percent(Math.max(...againstOff))})`);
  }
  if (SIDES.includes("job") && SIDES.includes("row")) {
    const againstRow = perRound("job", "row");
    out(`job against row (the same status write by hand), per round: median ${percent(median(againstRow))} (min ${percent(Math.min(...againstRow))}, max ${percent(Math.max(...againstRow))})`);
  }
  await writeFile(
    resultsFile("jobs.json"),
    `${JSON.stringify({ at: new Date().toISOString(), database: database.description, jobs: JOBS, rounds: ROUNDS, concurrency, pool: config.DB_POOL_SIZE, enqueue_parallel: PARALLEL, load_average: os.loadavg(), ...summary }, null, 2)}\n`,
  );
  if (!met.every(Boolean)) process.exitCode = 1;
} finally {
  await cleanup();
}
