import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import maintenancePrune from "../src/runtime/jobs/maintenance-prune.ts";
import type { Channels } from "../src/channels/index.ts";
import { declareTask, enqueue } from "../src/core/tasks.ts";
import { collectQueueGarbage } from "../src/queue/maintenance.ts";
import { runNow } from "./helpers/queue.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";

const env = useTestEnv({ app: false, shop: false });

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith(".ts")).map((e) => path.join(e.parentPath, e.name));
}

describe("the queue adapter", () => {
  it("is the only code in src/ and tasks/ that names graphile-worker's schema", async () => {
    const offenders: string[] = [];
    for (const file of [...(await sourceFiles("src")), ...(await sourceFiles("tasks"))]) {
      if (file.startsWith(`src${path.sep}queue${path.sep}`)) continue;
      const text = await fs.readFile(file, "utf8");
      text.split("\n").forEach((line, i) => {
        if (line.includes("graphile_worker.")) offenders.push(`${file}:${i + 1}`);
      });
    }
    expect(offenders).toEqual([]);
  });

  it("collects the job queues no job uses, and keeps every task identifier", async () => {
    const queued = declareTask({ name: "test.gc_queued", payload: z.object({}) });
    const gone = declareTask({ name: "test.gc_gone", payload: z.object({}) });
    await enqueue(env.pool, queued, {}, { queueName: "gc-live-queue", jobKey: "gc-live" });
    await enqueue(env.pool, gone, {}, { queueName: "gc-dead-queue", jobKey: "gc-gone" });
    // Done jobs are deleted by graphile-worker; their queue and task rows stay behind.
    await env.pool.query("select graphile_worker.remove_job('gc-gone')");

    expect((await collectQueueGarbage(env.pool)).job_queues).toBeGreaterThanOrEqual(1);
    const { rows: queues } = await env.pool.query<{ queue_name: string }>("select queue_name from graphile_worker._private_job_queues where queue_name like 'gc-%'");
    expect(queues.map((q) => q.queue_name)).toEqual(["gc-live-queue"]);
    const { rows: tasks } = await env.pool.query<{ identifier: string }>(
      "select identifier from graphile_worker._private_tasks where identifier like 'test.gc_%' order by identifier",
    );
    expect(tasks.map((t) => t.identifier)).toEqual(["test.gc_gone", "test.gc_queued"]);
  });

  it("keeps an idle queue that a transaction still under way is queuing a job in", async () => {
    const sync = declareTask({ name: "test.gc_race", payload: z.object({}) });
    await enqueue(env.pool, sync, {}, { queueName: "gc-race-queue", jobKey: "gc-race-1" });
    await env.pool.query("select graphile_worker.remove_job('gc-race-1')");
    // add_job reuses the idle queue and inserts its job, not yet committed (an action's transaction).
    const writer = await env.pool.connect();
    try {
      await writer.query("begin");
      await enqueue(writer, sync, {}, { queueName: "gc-race-queue", jobKey: "gc-race-2" });
      const collecting = collectQueueGarbage(env.pool);
      // The collection waits for that transaction (graphile-worker's own cleanup did not, and
      // deleted the queue of the job about to commit: that job was never fetched).
      await waitFor("the collection to wait on the queue table's lock", async () => {
        const { rows } = await env.pool.query(
          "select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like 'lock table graphile_worker._private_job_queues%'",
        );
        return rows.length > 0 ? true : undefined;
      });
      await writer.query("commit");
      await collecting;
    } finally {
      writer.release();
    }
    const { rows } = await env.pool.query<{ queue: string | null }>(
      `select q.queue_name as queue from graphile_worker._private_jobs j
       left join graphile_worker._private_job_queues q on q.id = j.job_queue_id where j.key = 'gc-race-2'`,
    );
    expect(rows).toEqual([{ queue: "gc-race-queue" }]);
  });

  it("runNow brings a waiting job forward, and leaves one a worker holds", async () => {
    const later = declareTask({ name: "test.run_now", payload: z.object({}) });
    await enqueue(env.pool, later, {}, { jobKey: "run-now-free", delaySeconds: 3600 });
    await enqueue(env.pool, later, {}, { jobKey: "run-now-held", delaySeconds: 3600 });
    await env.pool.query("update graphile_worker._private_jobs set locked_at = now(), locked_by = 'test-worker' where key = 'run-now-held'");

    expect(await runNow(env.pool, "run-now-free")).toBe(1);
    expect(await runNow(env.pool, "run-now-held")).toBe(0);
    const { rows } = await env.pool.query<{ key: string; due: boolean }>(
      "select key, run_at <= now() as due from graphile_worker.jobs where key like 'run-now-%' order by key",
    );
    expect(rows).toEqual([
      { key: "run-now-free", due: true },
      { key: "run-now-held", due: false },
    ]);
  });
});

describe("maintenance_prune", () => {
  it("collects unused job queues, and keeps the task identifiers", async () => {
    const dead = declareTask({ name: "test.prune_dead", payload: z.object({}) });
    await enqueue(env.pool, dead, {}, { queueName: "prune-dead-queue", jobKey: "prune-dead" });
    await env.pool.query("select graphile_worker.remove_job('prune-dead')");
    const ctx = { pool: env.pool, log: env.log, config: env.config, platform: testPlatformRuntime(), channels: {} as Channels, workerJobId: "1", attempt: 1, maxAttempts: 1, signal: undefined };
    await maintenancePrune.run(ctx, undefined);
    expect((await env.pool.query("select 1 from graphile_worker._private_job_queues where queue_name = 'prune-dead-queue'")).rowCount).toBe(0);
    expect((await env.pool.query("select 1 from graphile_worker._private_tasks where identifier = $1", [dead.name])).rowCount).toBe(1);
  });
});
