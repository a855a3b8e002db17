import type { Runner } from "graphile-worker";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTask } from "../src/core/tasks.ts";
import { createLogger } from "../src/logger.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { testConfig } from "./helpers/app.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";
import { type ThrowawayPostgres, startThrowawayPostgres } from "./helpers/throwaway-postgres.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * graphile-worker 0.18 ends its worker pool when a job finishes while the database is away (it
 * cannot record the completion, and does not try again: graphile/worker#636), and its runner then
 * stops as if asked (graphile/worker#635). The service's worker starts it again once the database
 * answers: the job whose completion was lost runs again (at least once, as after a crash), and
 * new jobs run, in the same runner handle, until stop().
 */

let db: ThrowawayPostgres | undefined;
let runner: Runner | undefined;
afterAll(async () => {
  await runner?.stop().catch(() => undefined);
  await db?.close();
});

describe("the worker through a database outage", () => {
  it("starts graphile-worker again after its pool ended with the database, and runs jobs again", { timeout: 120_000 }, async () => {
    db = await startThrowawayPostgres();
    const pool = new pg.Pool({ connectionString: db.url, max: 20 });
    pool.on("error", () => undefined);
    pool.on("connect", (client) => client.on("error", () => undefined));
    const runs: string[] = [];
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const hold = defineTask({
      name: "test.outage_hold",
      payload: z.object({ n: z.number() }),
      run: async (_ctx, payload) => {
        runs.push(`hold ${payload.n}`);
        if (payload.n === 1) await held;
      },
    });
    runner = await startWorker({ pool, log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"), config: testConfig(db.url), platform: testPlatformRuntime() }, { pollInterval: 100, cron: false, extraTasks: [hold] });
    let pools = 0;
    let shutdowns = 0;
    runner.events.on("pool:create", () => (pools += 1));
    runner.events.on("pool:gracefulShutdown", () => (shutdowns += 1));
    let settled = false;
    void runner.promise.finally(() => (settled = true));

    await db.pool.query("select graphile_worker.add_job('test.outage_hold', json_build_object('n', 1))");
    await waitFor("the job to run", async () => (runs.length === 1 ? true : undefined), 30_000);
    await db.stop();
    // It finishes while the database is away: its completion cannot be recorded.
    release();
    await waitFor("graphile-worker's pool to end", async () => (shutdowns >= 1 ? true : undefined), 30_000);
    await db.start();

    await waitFor("a new pool", async () => (pools >= 1 ? true : undefined), 60_000);
    await db.pool.query("select graphile_worker.add_job('test.outage_hold', json_build_object('n', 2))");
    await waitFor("the lost completion's job and a new one to run", async () => (runs.includes("hold 2") && runs.filter((r) => r === "hold 1").length >= 2 ? true : undefined), 60_000);
    expect(settled).toBe(false);
    // Both completions recorded this time (a completion is recorded just after the run).
    await waitFor("both jobs to be done", async () => {
      const { rows } = await db?.pool.query<{ n: number }>("select count(*)::int as n from graphile_worker.jobs where task_identifier = 'test.outage_hold'") ?? { rows: [] };
      return rows[0]?.n === 0 ? true : undefined;
    });

    await runner.stop();
    runner = undefined;
    expect(settled).toBe(true);
    await pool.end();
  });
});
