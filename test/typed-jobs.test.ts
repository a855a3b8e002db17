import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineJob } from "../src/core/job-task.ts";
import { type JobRow, declareJob, enqueueJob, enqueueJobRow } from "../src/core/jobs.ts";
import { createLogger } from "../src/logger.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { testConfig } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({ app: false, shop: true });

const greetJob = declareJob({ name: "test.typed_greet", payload: z.object({ name: z.string().min(1), times: z.int().min(1).default(1) }) });
const runs: { shopId: string; payload: unknown }[] = [];

async function jobRow(id: string): Promise<JobRow | undefined> {
  return (await env.pool.query<JobRow>("select * from jobs where id = $1", [id])).rows[0];
}

async function workerAttempts(id: string): Promise<{ attempts: number; max_attempts: number } | undefined> {
  const { rows } = await env.pool.query<{ attempts: number; max_attempts: number }>("select attempts, max_attempts from graphile_worker.jobs where key = $1", [`job:${id}`]);
  return rows[0];
}

describe("typed application jobs", () => {
  let runner: Runner;

  beforeAll(async () => {
    const deps = { pool: env.pool, log: createLogger("silent"), config: testConfig(env.db.url), platform: testPlatformRuntime() };
    const greet = defineJob({
      ...greetJob,
      async run(ctx) {
        runs.push({ shopId: ctx.shopId, payload: ctx.payload });
        return { greeted: `${ctx.payload.name} x${ctx.payload.times}` };
      },
    });
    runner = await startWorker(deps, { pollInterval: 100, cron: false, extraTasks: [greet] });
  });

  afterAll(async () => {
    await runner.stop();
  });

  it("runs with its shop and its payload parsed by the job's schema (defaults applied)", async () => {
    const { job_id: jobId } = await enqueueJob(env.pool, greetJob, { name: "Ada" }, { shopId: env.shopId });
    const done = await waitFor("the job to complete", async () => {
      const job = await jobRow(jobId);
      return job?.status === "completed" ? job : undefined;
    });
    expect(done.result).toEqual({ greeted: "Ada x1" });
    expect(runs).toContainEqual({ shopId: env.shopId, payload: { name: "Ada", times: 1 } });
  });

  it("refuses at enqueue a payload its schema refuses, and writes nothing", async () => {
    const before = (await env.pool.query<{ n: number }>("select count(*)::int as n from jobs")).rows[0]?.n;
    // @ts-expect-error -- the wrong type on purpose: a programming error caught at run time too
    await expect(enqueueJob(env.pool, greetJob, { name: 3 }, { shopId: env.shopId })).rejects.toThrow(/test\.typed_greet: payload refused by the job's schema/);
    expect((await env.pool.query<{ n: number }>("select count(*)::int as n from jobs")).rows[0]?.n).toBe(before);
  });

  it("fails at once, without its retries, a stored row whose payload the schema refuses", async () => {
    const { job_id: jobId } = await enqueueJobRow(env.pool, { shopId: env.shopId, task: greetJob.task, payload: { name: "" }, maxAttempts: 5 });
    const failed = await waitFor("the job to fail", async () => {
      const job = await jobRow(jobId);
      return job?.status === "failed" ? job : undefined;
    });
    expect(failed.errors).toHaveLength(1);
    const [error] = failed.errors as { attempt: number; message: string }[];
    expect(error?.attempt).toBe(1);
    expect(error?.message).toContain("test.typed_greet: payload refused by the job's schema");
    const queue = await waitFor("graphile-worker to record the failure", async () => {
      const row = await workerAttempts(jobId);
      return row && row.attempts === row.max_attempts ? row : undefined;
    });
    expect(queue).toEqual({ attempts: 1, max_attempts: 1 });
  });

  it("fails at once a row without a shop", async () => {
    const { job_id: jobId } = await enqueueJobRow(env.pool, { shopId: null, task: greetJob.task, payload: { name: "Ada" }, maxAttempts: 5 });
    const failed = await waitFor("the job to fail", async () => {
      const job = await jobRow(jobId);
      return job?.status === "failed" ? job : undefined;
    });
    expect(failed.errors).toEqual([expect.objectContaining({ attempt: 1, message: "test.typed_greet job without a shop" })]);
  });
});
