import { spawn } from "node:child_process";
import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { help } from "../src/docs/actions/help.ts";
import { getJob } from "../src/jobs/actions/get.ts";
import { defineAction } from "../src/core/action.ts";
import { conflict } from "../src/core/errors.ts";
import { defineJobTask } from "../src/core/job-task.ts";
import { type JobRow, declareJobTask, enqueueJobRow } from "../src/core/jobs.ts";
import { type AnyTaskDefinition, declareTask, defineTask, enqueue } from "../src/core/tasks.ts";
import { removeJobByKey } from "../src/queue/admin.ts";
import { createLogger } from "../src/logger.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { invoke, testConfig } from "./helpers/app.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { queueJobCount, runNow } from "./helpers/queue.ts";

/** A write that enqueues a job, then either commits or refuses (409) after enqueuing. */
const enqueueThenMaybeRefuse = defineAction({
  name: "test.enqueue",
  method: "POST",
  path: "/test/enqueue",
  description: "test",
  kind: "write",
  async: true,
  input: z.strictObject({ kind: z.string(), refuse: z.boolean().default(false), max_attempts: z.int().default(5) }),
  async handler(ctx, { input }) {
    const handle = await enqueueJobRow(ctx.db, { shopId: ctx.shopId, task: declareJobTask({ name: input.kind }), maxAttempts: input.max_attempts });
    if (input.refuse) throw conflict("refused after enqueuing");
    return handle;
  },
});

const env = useTestEnv({ actions: [help, getJob, enqueueThenMaybeRefuse] });

async function jobRow(id: string): Promise<JobRow | undefined> {
  return (await env.pool.query<JobRow>("select * from jobs where id = $1", [id])).rows[0];
}

describe("jobs enqueued with a write", () => {
  it("a committed write keeps its job, queued in graphile-worker, visible at its status_url", async () => {
    const answer = await invoke(env.app, "POST", "/test/enqueue", { key: env.key, body: { kind: "test.never_run" } });
    expect(answer.status).toBe(202);
    const handle = answer.body as { job_id: string; status_url: string };
    expect(handle.status_url).toBe(`/api/v2/external/jobs/${handle.job_id}`);
    expect(await queueJobCount(env.pool, handle.job_id)).toBe(1);
    const status = await invoke(env.app, "GET", `/jobs/${handle.job_id}`, { key: env.key });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ id: handle.job_id, kind: "test.never_run", status: "queued", processed: 0, errors: [] });
  });

  it("answers progress (0 to 100) and ready beside the status, as STOQ's jobs do (issue 31: there were none)", async () => {
    const answer = await invoke(env.app, "POST", "/test/enqueue", { key: env.key, body: { kind: "test.never_run" } });
    const { job_id: jobId } = answer.body as { job_id: string };
    const read = async () => (await invoke(env.app, "GET", `/jobs/${jobId}`, { key: env.key })).body as Record<string, unknown>;
    expect(await read()).toMatchObject({ status: "queued", progress: 0, ready: false });
    await env.pool.query("update jobs set status = 'running', total = 8, processed = 3 where id = $1", [jobId]);
    expect(await read()).toMatchObject({ status: "running", progress: 37, ready: false });
    // Every unit done, the result not yet recorded: not 100 before it completes.
    await env.pool.query("update jobs set processed = 8 where id = $1", [jobId]);
    expect(await read()).toMatchObject({ progress: 99, ready: false });
    await env.pool.query("update jobs set status = 'failed' where id = $1", [jobId]);
    expect(await read()).toMatchObject({ status: "failed", progress: 99, ready: false });
    await env.pool.query("update jobs set status = 'completed', total = null where id = $1", [jobId]);
    expect(await read()).toMatchObject({ status: "completed", progress: 100, ready: true });
  });

  it("a write that enqueues and then rolls back leaves no job anywhere", async () => {
    const before = await env.pool.query<{ jobs: number; worker: number }>(
      "select (select count(*) from jobs)::int as jobs, (select count(*) from graphile_worker.jobs)::int as worker",
    );
    const answer = await invoke(env.app, "POST", "/test/enqueue", { key: env.key, body: { kind: "test.never_run", refuse: true } });
    expect(answer.status).toBe(409);
    const after = await env.pool.query<{ jobs: number; worker: number }>(
      "select (select count(*) from jobs)::int as jobs, (select count(*) from graphile_worker.jobs)::int as worker",
    );
    expect(after.rows[0]).toEqual(before.rows[0]);
  });
});

/** The service's worker, with the test's tasks beside its own, for the describe it is called in. */
function useWorker(tasks: readonly AnyTaskDefinition[]): void {
  let runner: Runner | undefined;
  beforeAll(async () => {
    const deps = { pool: env.pool, log: createLogger("silent"), config: testConfig(env.db.url), platform: testPlatformRuntime() };
    runner = await startWorker(deps, { pollInterval: 100, cron: false, extraTasks: tasks });
  });
  afterAll(async () => {
    await runner?.stop();
  });
}

describe("a job that throws", () => {
  let calls = 0;
  useWorker([
    defineJobTask({
      name: "test.database_fails",
      async run(ctx) {
        await ctx.pool.query("select 1 / 0 as secret_column from jobs");
      },
    }),
    defineJobTask({
      name: "test.always_fails",
      async run() {
        calls += 1;
        throw new Error(`provider down (call ${calls})`);
      },
    }),
  ]);

  it("is retried with backoff and ends failed after its last attempt", async () => {
    const answer = await invoke(env.app, "POST", "/test/enqueue", { key: env.key, body: { kind: "test.always_fails", max_attempts: 2 } });
    const { job_id: jobId } = answer.body as { job_id: string };

    // First attempt fails: the job waits for its retry, and graphile-worker has pushed run_at out.
    const afterFirst = await waitFor("the first failure", async () => {
      const job = await jobRow(jobId);
      return job && job.errors.length === 1 ? job : undefined;
    });
    expect(afterFirst.status).toBe("queued");
    expect(afterFirst.errors[0]).toMatchObject({ attempt: 1, message: "provider down (call 1)" });
    // graphile-worker records the failure just after the task throws: wait for its last_error.
    const retry = await waitFor("graphile-worker to schedule the retry", async () => {
      const { rows } = await env.pool.query<{ delay_s: number; attempts: number; last_error: string | null }>(
        "select extract(epoch from run_at - now())::float8 as delay_s, attempts, last_error from graphile_worker.jobs where key = $1",
        [`job:${jobId}`],
      );
      return rows[0]?.last_error ? rows[0] : undefined;
    });
    expect(retry.attempts).toBe(1);
    expect(retry.last_error).toContain("provider down (call 1)");
    expect(retry.delay_s).toBeGreaterThan(1); // exponential backoff: about e^1 s after the first failure

    // Bring the retry forward instead of waiting out the backoff.
    await runNow(env.pool, `job:${jobId}`);
    const failed = await waitFor("the job to fail for good", async () => {
      const job = await jobRow(jobId);
      return job?.status === "failed" ? job : undefined;
    });
    expect(failed.errors).toHaveLength(2);
    expect(failed.finished_at).not.toBeNull();
    expect(calls).toBe(2);

    const status = await invoke(env.app, "GET", `/jobs/${jobId}`, { key: env.key });
    expect(status.body).toMatchObject({
      status: "failed",
      errors: [expect.objectContaining({ attempt: 1 }), expect.objectContaining({ attempt: 2, message: "provider down (call 2)" })],
    });
  });

  it("shows a database error's text only in the log, not at its status_url", async () => {
    const answer = await invoke(env.app, "POST", "/test/enqueue", { key: env.key, body: { kind: "test.database_fails", max_attempts: 1 } });
    const { job_id: jobId } = answer.body as { job_id: string };
    await waitFor("the job to fail", async () => ((await jobRow(jobId))?.status === "failed" ? true : undefined));
    const status = await invoke(env.app, "GET", `/jobs/${jobId}`, { key: env.key });
    expect(status.body).toMatchObject({
      status: "failed",
      errors: [expect.objectContaining({ attempt: 1, message: "Internal database error (details in the service log)" })],
    });
  });
});

describe("a job that ends with nothing to record", () => {
  let plainRuns = 0;
  useWorker([
    defineJobTask({ name: "test.returns_nothing", async run() {} }),
    defineJobTask({ name: "test.returns_counts", run: () => Promise.resolve({ counts: { done: 3 } }) }),
    defineTask({
      name: "test.plain",
      payload: z.object({}),
      run() {
        plainRuns += 1;
        return Promise.resolve();
      },
    }),
  ]);

  // Its end is written by graphile-worker's completion (the trigger of sql/103), not by the run.
  it("shows completed with its attempt, start, end and progress, as one that recorded a result", async () => {
    const [nothing, counts] = await Promise.all(
      ["test.returns_nothing", "test.returns_counts"].map((name) => enqueueJobRow(env.pool, { shopId: env.shopId, task: declareJobTask({ name }), total: 7 })),
    );
    for (const handle of [nothing, counts]) {
      const job = await waitFor("the job to complete", async () => {
        const row = await jobRow(handle?.job_id ?? "");
        return row?.status === "completed" ? row : undefined;
      });
      expect(job).toMatchObject({ attempts: 1, processed: 7, errors: [] });
      expect(job.started_at).not.toBeNull();
      expect(job.finished_at?.getTime()).toBeGreaterThanOrEqual(job.started_at?.getTime() ?? Infinity);
      if (handle === nothing) {
        // Completed in graphile-worker's own delete of the queue job: both in one transaction.
        expect(await queueJobCount(env.pool, job.id)).toBe(0);
      } else {
        // A run with a result writes its end first; graphile-worker's completion follows it.
        await waitFor("the queue job to be completed", async () => ((await queueJobCount(env.pool, job.id)) === 0 ? true : undefined));
      }
    }
    expect((await jobRow(nothing?.job_id ?? ""))?.result).toBeNull();
    expect((await jobRow(counts?.job_id ?? ""))?.result).toEqual({ counts: { done: 3 } });
  });

  it("is not taken for completed when its queue job is removed before any run", async () => {
    const handle = await enqueueJobRow(env.pool, { shopId: env.shopId, task: declareJobTask({ name: "test.never_run" }) });
    await removeJobByKey(env.pool, `job:${handle.job_id}`);
    expect(await queueJobCount(env.pool, handle.job_id)).toBe(0);
    expect((await jobRow(handle.job_id))?.status).toBe("queued");
  });

  it("leaves a queue job whose key only looks like an app job's to complete as any other", async () => {
    await enqueue(env.pool, declareTask({ name: "test.plain", payload: z.object({}) }), {}, { jobKey: "job:not-a-job-id" });
    await enqueue(env.pool, declareTask({ name: "test.plain", payload: z.object({}) }), {}, { jobKey: "job:00000000-0000-0000-0000-000000000000" });
    await waitFor("both plain jobs to run and complete", async () => {
      const { rows } = await env.pool.query<{ n: number }>("select count(*)::int as n from graphile_worker.jobs where task_identifier = 'test.plain'");
      return plainRuns === 2 && rows[0]?.n === 0 ? true : undefined;
    });
  });
});

describe("SIGTERM during a running job", () => {
  it("lets the job finish, then exits 0", async () => {
    const answer = await invoke(env.app, "POST", "/test/enqueue", { key: env.key, body: { kind: "test.slow" } });
    const { job_id: jobId } = answer.body as { job_id: string };
    const child = spawn(process.execPath, ["test/fixtures/slow-job-worker.ts"], {
      env: { ...process.env, DATABASE_URL: env.db.url, LOG_LEVEL: process.env.FIXTURE_LOG_LEVEL ?? "silent", SLOW_JOB_MS: "1500" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // Its signal handlers are installed once it says so; the job may be running before that.
    const ready = new Promise<void>((resolve) => child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("worker ready") && resolve()));
    await waitFor("the slow job to start", async () => {
      const job = await jobRow(jobId);
      return job?.status === "running" && job.processed === 1 ? job : undefined;
    });
    await ready;
    child.kill("SIGTERM");
    const code = await exited;
    expect(code).toBe(0);
    const job = await jobRow(jobId);
    expect(job).toMatchObject({ status: "completed", result: { slept_ms: 1500 } });
    expect(await queueJobCount(env.pool, jobId)).toBe(0);
  });
});
