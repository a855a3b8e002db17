import { spawn } from "node:child_process";
import type { Runner } from "graphile-worker";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../src/core/db.ts";
import { type JobRow, enqueueJobRow } from "../src/core/jobs.ts";
import { TaskRegistry } from "../src/core/task-registry.ts";
import { declareTask, defineTask, enqueue } from "../src/core/tasks.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { slowJobTask } from "./fixtures/slow-job.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({ app: false, shop: false });

const pingTask = declareTask({ name: "test.ping", payload: z.object({ n: z.number().int() }) });
/** Queued by the enqueue tests; no worker here runs it. */
const queuedOnlyTask = declareTask({ name: "test.queued_only", payload: z.object({ n: z.number().int() }) });

async function workerJobs(key: string): Promise<{ attempts: number; locked_at: Date | null; last_error: string | null }[]> {
  const { rows } = await env.pool.query<{ attempts: number; locked_at: Date | null; last_error: string | null }>(
    "select attempts, locked_at, last_error from graphile_worker.jobs where key = $1",
    [key],
  );
  return rows;
}

async function workerJobCount(): Promise<number> {
  const { rows } = await env.pool.query<{ n: number }>("select count(*)::int as n from graphile_worker._private_jobs");
  return rows[0]?.n ?? 0;
}

describe("the task registry", () => {
  it("fails fast on a task name given twice", () => {
    const run = async () => undefined;
    const a = defineTask({ ...pingTask, run });
    const b = defineTask({ name: "test.ping", payload: z.unknown(), run });
    expect(() => new TaskRegistry([a, b])).toThrow("Duplicate task name: test.ping");
  });

  it("builds each task's schedules with graphile-worker's parser, named by the task; a bad pattern or an identifier given twice fails fast", () => {
    const run = async () => undefined;
    const every5 = defineTask({ name: "test.every5", payload: z.unknown(), cron: [{ match: "*/5 * * * *", options: { maxAttempts: 1 } }], run });
    const [item] = new TaskRegistry([every5]).cronItems();
    expect(item).toMatchObject({ task: "test.every5", identifier: "test.every5", options: { maxAttempts: 1 } });
    const at = (min: number) => item?.match({ min, hour: 1, date: 1, month: 1, dow: 0 });
    expect([at(0), at(3), at(5), at(55)]).toEqual([true, false, true, true]);

    const bad = defineTask({ name: "test.bad", payload: z.unknown(), cron: [{ match: "*/5 * *", options: {} }], run });
    expect(() => new TaskRegistry([bad]).cronItems()).toThrow();
    const twice = defineTask({ name: "test.twice", payload: z.unknown(), cron: [{ match: "* * * * *" }, { match: "0 * * * *" }], run });
    expect(() => new TaskRegistry([twice]).cronItems()).toThrow("Two schedules of test.twice share the identifier test.twice: give each its own");
  });

  it("refuses a worker whose extra task takes a name of the service's", async () => {
    const clash = defineTask({ name: "maintenance_prune", payload: z.unknown(), run: async () => undefined });
    await expect(
      startWorker({ pool: env.pool, log: env.log, config: env.config, platform: testPlatformRuntime() }, { cron: false, extraTasks: [clash] }),
    ).rejects.toThrow("Duplicate task name: maintenance_prune");
  });
});

describe("enqueue", () => {
  it("refuses a payload the task's schema refuses, and writes nothing", async () => {
    const before = await workerJobCount();
    // @ts-expect-error -- the wrong type on purpose: a programming error caught at run time too
    await expect(enqueue(env.pool, queuedOnlyTask, { n: "one" })).rejects.toThrow(/test\.queued_only.*payload/s);
    expect(await workerJobCount()).toBe(before);
  });

  it("inside a rolled-back transaction leaves no job; inside a committed one exactly one, under its key", async () => {
    const refused = new Error("refused after enqueuing");
    await expect(
      withTransaction(env.pool, async (db) => {
        await enqueue(db, queuedOnlyTask, { n: 1 }, { jobKey: "test.queued_only:rolled-back" });
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(await workerJobs("test.queued_only:rolled-back")).toEqual([]);

    await withTransaction(env.pool, (db) => enqueue(db, queuedOnlyTask, { n: 2 }, { jobKey: "test.queued_only:committed", maxAttempts: 3 }));
    const { rows } = await env.pool.query<{ task_identifier: string; payload: unknown; max_attempts: number }>(
      "select j.task_identifier, p.payload, j.max_attempts from graphile_worker.jobs j join graphile_worker._private_jobs p on p.id = j.id where j.key = $1",
      ["test.queued_only:committed"],
    );
    expect(rows).toEqual([{ task_identifier: "test.queued_only", payload: { n: 2 }, max_attempts: 3 }]);
  });
});

describe("a job whose payload its task refuses, reaching a running worker", () => {
  const logged: Record<string, unknown>[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
  let runs = 0;
  let runner: Runner;

  beforeAll(async () => {
    const counted = defineTask({
      ...pingTask,
      async run() {
        runs += 1;
      },
    });
    runner = await startWorker({ pool: env.pool, log, config: env.config, platform: testPlatformRuntime() }, { pollInterval: 100, cron: false, extraTasks: [counted] });
  });

  afterAll(async () => {
    await runner.stop();
  });

  // Two of the service's own tasks that used to parse (and throw, so retry) by themselves, and one of the test's.
  it.each([
    ["platform_webhook", { delivery_id: "not a number" }],
    ["bis_tag_customer", { signup_id: "not-a-uuid" }],
    ["test.ping", { n: "one" }],
  ])("%s: logged at error with its job id and issues, finished on its first attempt, never retried", async (task, payload) => {
    const key = `bad-payload:${task}`;
    const { rows } = await env.pool.query<{ id: string }>("select (graphile_worker.add_job($1, $2::json, job_key := $3, max_attempts := 5)).id", [
      task,
      JSON.stringify(payload),
      key,
    ]);
    const workerJobId = rows[0]?.id;
    // Processed: either gone (finished) or back in the queue with an error (a retry).
    const left = await waitFor("the worker to take the job", async () => {
      const jobs = await workerJobs(key);
      return jobs.length === 0 || (jobs[0] && jobs[0].attempts > 0 && jobs[0].locked_at === null) ? jobs : undefined;
    });
    expect(left, "no retry waits in graphile-worker").toEqual([]);
    const errors = logged.filter((line) => line.level === 50 && line.workerJobId === workerJobId);
    expect(errors).toEqual([
      expect.objectContaining({ task, attempt: 1, issues: [expect.objectContaining({ path: [Object.keys(payload)[0]] })] }),
    ]);
    expect(runs).toBe(0);
  });
});

describe("a job claimed before the worker process has finished starting", () => {
  it("runs with its deps from the task context, on its first attempt", { timeout: 60_000 }, async () => {
    // Queued before the process starts: its first poll claims the job while startService is still at work.
    const { job_id: jobId } = await enqueueJobRow(env.pool, { shopId: null, task: slowJobTask, maxAttempts: 3 });
    const child = spawn(process.execPath, ["test/fixtures/slow-job-worker.ts"], {
      env: { ...process.env, DATABASE_URL: env.db.url, LOG_LEVEL: process.env.FIXTURE_LOG_LEVEL ?? "silent", SLOW_JOB_MS: "10" },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const job = await waitFor("the slow job to complete", async () => {
        const { rows } = await env.pool.query<JobRow>("select * from jobs where id = $1", [jobId]);
        return rows[0]?.status === "completed" ? rows[0] : undefined;
      });
      expect(job).toMatchObject({ attempts: 1, errors: [], result: { slept_ms: 10 } });
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  });
});
