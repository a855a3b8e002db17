import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { type JobRow, declareJobTask, enqueueJobRow } from "../src/core/jobs.ts";
import { reapDeadWorkers } from "../src/runtime/worker-reaper.ts";
import { slowJobTask } from "./fixtures/slow-job.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { type WorkerProcess, startWorkerProcess } from "./helpers/worker-process.ts";

// Small thresholds so a dead worker is noticed in seconds, not the default minute.
const HEARTBEAT_SECONDS = 1;
const DEAD_AFTER_SECONDS = 3;

const env = useTestEnv({ app: false, shop: "Dead Worker Shop" });
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

interface WorkerLock {
  id: string;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  locked_by: string | null;
}

async function workerJob(appJobId: string): Promise<WorkerLock | undefined> {
  const { rows } = await env.pool.query<WorkerLock>(
    "select id, attempts, max_attempts, last_error, locked_by from graphile_worker.jobs where key = $1",
    [`job:${appJobId}`],
  );
  return rows[0];
}

async function appJob(id: string): Promise<JobRow> {
  const { rows } = await env.pool.query<JobRow>("select * from jobs where id = $1", [id]);
  if (!rows[0]) throw new Error(`no job ${id}`);
  return rows[0];
}

/**
 * The service's worker process (test/fixtures/slow-job-worker.ts) with small heartbeat thresholds;
 * resolves once it is ready (its signal handlers installed).
 */
function startWorker(slowJobMs: number): Promise<WorkerProcess> {
  return startWorkerProcess(
    "test/fixtures/slow-job-worker.ts",
    {
      DATABASE_URL: env.db.url,
      LOG_LEVEL: process.env.FIXTURE_LOG_LEVEL ?? "silent",
      SLOW_JOB_MS: String(slowJobMs),
      WORKER_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
      WORKER_DEAD_AFTER_SECONDS: String(DEAD_AFTER_SECONDS),
    },
    children,
  );
}

describe("a worker killed while it runs a job", () => {
  it("its job is unlocked once its heartbeat is older than the threshold, then completed by another worker", { timeout: 90_000 }, async () => {
    const first = await startWorker(600_000);
    const { job_id: jobId } = await enqueueJobRow(env.pool, { shopId: env.shopId, task: slowJobTask, maxAttempts: 3 });
    await waitFor("the slow job to start", async () => {
      const job = await appJob(jobId);
      return job.status === "running" && job.processed === 1 ? job : undefined;
    });
    const deadLock = (await workerJob(jobId))?.locked_by;
    expect(deadLock).toEqual(expect.any(String));
    first.child.kill("SIGKILL");
    expect(await first.exited).toBeNull();
    expect((await workerJob(jobId))?.locked_by).toBe(deadLock);

    const second = await startWorker(100);
    // The reaper runs as the worker_reap task (each minute from the crontab); queued here instead,
    // over and over, until the dead worker's silence passes the threshold and its job is freed.
    await waitFor(
      "the killed worker's job to be completed",
      async () => {
        if ((await appJob(jobId)).status === "completed") return true;
        await env.pool.query("select graphile_worker.add_job('worker_reap', '{}', job_key := 'test_worker_reap', job_key_mode := 'preserve_run_at')");
        return undefined;
      },
      30_000,
    ).catch(() => undefined);
    expect((await workerJob(jobId))?.locked_by, "the dead worker's lock is released").not.toBe(deadLock);

    const job = await appJob(jobId);
    expect(job).toMatchObject({ status: "completed", result: { slept_ms: 100 }, attempts: 2 });
    expect(job.errors).toEqual([expect.objectContaining({ attempt: 1, message: expect.stringMatching(/stopped responding/) as unknown })]);
    // The app job is written completed inside the run; graphile-worker removes its queue row after, in a batch.
    await waitFor("the finished job's queue row to be removed", async () => ((await workerJob(jobId)) === undefined ? true : undefined));
    const { rows: beats } = await env.pool.query<{ worker_id: string; pid: number }>("select worker_id, pid from worker_heartbeats");
    expect(beats.map((b) => b.worker_id)).not.toContain(deadLock);
    expect(beats.map((b) => b.pid)).toEqual([second.child.pid]);

    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    // A clean stop takes its own heartbeat away.
    expect((await env.pool.query("select 1 from worker_heartbeats")).rowCount).toBe(0);
  });
});

describe("reapDeadWorkers", () => {
  /** An app job whose graphile-worker job is locked by `lockedBy` since `lockedAgo` on its `attempts`th run. */
  async function lockedJob(lockedBy: string, lockedAgo: string, attempts: number, maxAttempts: number): Promise<string> {
    // A kind no worker runs: only the reaper touches these.
    const { job_id: jobId } = await enqueueJobRow(env.pool, { shopId: env.shopId, task: declareJobTask({ name: "test.no_worker" }), maxAttempts });
    await env.pool.query("update jobs set status = 'running', attempts = $2, started_at = now() where id = $1", [jobId, attempts]);
    await env.pool.query(
      `update graphile_worker._private_jobs set locked_by = $2, locked_at = now() - $3::interval, attempts = $4
       where key = $1`,
      [`job:${jobId}`, lockedBy, lockedAgo, attempts],
    );
    return jobId;
  }

  async function beat(workerId: string, ago: string): Promise<void> {
    await env.pool.query(
      "insert into worker_heartbeats (worker_id, pid, hostname, last_seen_at) values ($1, 1, 'test', now() - $2::interval)",
      [workerId, ago],
    );
  }

  it("frees only the jobs of silent workers and of lock holders that never beat, and settles their app jobs", async () => {
    await env.pool.query("delete from worker_heartbeats");
    await beat("pool-live", "1 second");
    await beat("pool-dead", "2 minutes");
    const live = await lockedJob("pool-live", "1 hour", 1, 3); // a long job of a live worker
    const dead = await lockedJob("pool-dead", "70 seconds", 2, 3);
    const deadLast = await lockedJob("pool-dead", "70 seconds", 3, 3); // its final attempt
    const neverBeatOld = await lockedJob("pool-never-beat", "2 minutes", 1, 5);
    const neverBeatNew = await lockedJob("pool-just-started", "5 seconds", 1, 5);

    const reaped = await reapDeadWorkers(env.pool, 60);
    expect(new Set(reaped.workerIds)).toEqual(new Set(["pool-dead", "pool-never-beat"]));
    expect(reaped.jobs).toBe(3);

    expect((await workerJob(live))?.locked_by).toBe("pool-live");
    expect((await workerJob(neverBeatNew))?.locked_by).toBe("pool-just-started");
    expect((await appJob(live)).status).toBe("running");
    expect((await appJob(neverBeatNew)).status).toBe("running");

    expect(await workerJob(dead)).toMatchObject({ locked_by: null, attempts: 2, last_error: null });
    expect(await appJob(dead)).toMatchObject({ status: "queued", finished_at: null });
    expect((await appJob(dead)).errors).toEqual([expect.objectContaining({ attempt: 2, message: expect.stringMatching(/stopped responding/) as unknown })]);
    expect(await workerJob(neverBeatOld)).toMatchObject({ locked_by: null, attempts: 1 });
    expect((await appJob(neverBeatOld)).status).toBe("queued");

    // The final attempt died: graphile-worker would never run it again, so the app job fails now.
    expect(await workerJob(deadLast)).toMatchObject({ locked_by: null, attempts: 3, last_error: expect.stringMatching(/stopped responding/) as unknown });
    expect(await appJob(deadLast)).toMatchObject({ status: "failed", finished_at: expect.any(Date) as unknown });

    const { rows } = await env.pool.query<{ worker_id: string }>("select worker_id from worker_heartbeats");
    expect(rows.map((r) => r.worker_id)).toEqual(["pool-live"]);

    // Nothing left to do: a second pass frees nothing and records nothing twice.
    expect(await reapDeadWorkers(env.pool, 60)).toEqual({ workerIds: [], jobs: 0 });
    expect((await appJob(dead)).errors).toHaveLength(1);
  });
});

describe("heartbeat settings", () => {
  it("default to a beat every 10 s and death after 60 s of silence", () => {
    expect(loadConfig({})).toMatchObject({ WORKER_HEARTBEAT_SECONDS: 10, WORKER_DEAD_AFTER_SECONDS: 60 });
  });

  it("refuse a threshold that one late beat would pass", () => {
    expect(() => loadConfig({ WORKER_HEARTBEAT_SECONDS: "10", WORKER_DEAD_AFTER_SECONDS: "20" })).toThrow(
      "WORKER_DEAD_AFTER_SECONDS: must be more than twice WORKER_HEARTBEAT_SECONDS",
    );
  });
});
