import { EventEmitter } from "node:events";
import { type Runner, type WorkerEvents, run } from "graphile-worker";
import { TASKS } from "../../tasks/index.ts";
import { createChannels } from "../channels/index.ts";
import { TaskRegistry } from "../core/task-registry.ts";
import type { AnyTaskDefinition, TaskDeps } from "../core/tasks.ts";
import { workerLogger } from "../logger.ts";
import { keepRenderThreadsWarm } from "../messaging/render/pool.ts";
import { countJobs } from "../metrics/worker.ts";
import { recordJobAttempts } from "../ops/attempts.ts";
import { enqueueAlertRecovery } from "../back_in_stock/alerts/recovery.ts";
import { withTransaction } from "../core/db.ts";
import { databaseGate } from "../messaging/ledger/database-gate.ts";
import { enqueueNotificationRecovery } from "../preorders/notifications/recovery.ts";
import { type Heartbeat, startHeartbeat } from "./worker-heartbeat.ts";
import { releaseWorkers } from "./worker-reaper.ts";
import { superviseRunner } from "./worker-supervisor.ts";

/** The service's task deps; without channels the worker makes its own from the configuration. */
type WorkerDeps = Omit<TaskDeps, "channels"> & Partial<Pick<TaskDeps, "channels">>;

export interface WorkerOptions {
  /** Extra tasks (tests), registered beside the service's own (a name of theirs fails fast). */
  extraTasks?: readonly AnyTaskDefinition[];
  /** false: no schedules (tests run what they need themselves). Default true. */
  cron?: boolean;
  pollInterval?: number;
  /** false: the console's run recorder off (bench:jobs measures its cost against it). Default true. */
  recordAttempts?: boolean;
}

/**
 * Starts graphile-worker on the service's pool with every task and the crontab. Signals are the
 * caller's to handle (see runtime/shutdown.ts), so HTTP and the worker stop in one order.
 */
export async function startWorker(given: WorkerDeps, options: WorkerOptions = {}): Promise<Runner> {
  // First: a duplicate task name fails before anything is opened.
  const registry = new TaskRegistry([...TASKS, ...(options.extraTasks ?? [])]);
  // Channels not given (tests, benchmarks) are the worker's own: created here, closed by stop().
  const channels = given.channels ?? createChannels(given.config, given.log);
  const closeOwnChannels = () => (channels === given.channels ? Promise.resolve() : channels.close());
  const deps: TaskDeps = { ...given, channels };
  // graphile-worker 0.18 locks jobs under its pool's id, which only the pool:create event tells.
  // Each pool beats while it lives, so the worker_reap cron task can tell a dead one's locks.
  const events: WorkerEvents = new EventEmitter();
  const heartbeats: Heartbeat[] = [];
  // Pools of this process that ended by themselves (a database outage): their locks are freed at the restart.
  const ended: string[] = [];
  // Job runs by task and outcome, into the process's metrics registry (src/metrics).
  countJobs(events);
  // Every run with its error and time, for the console (job_attempts, decision 0251).
  const attempts = options.recordAttempts === false ? undefined : recordJobAttempts(events, deps.pool, deps.log);
  events.on("pool:create", ({ workerPool }) => {
    const heartbeat = startHeartbeat(deps.pool, workerPool.id, deps.config.WORKER_HEARTBEAT_SECONDS, deps.log);
    heartbeats.push(heartbeat);
    // A pool that ends by itself (a fatal error) stops beating with it.
    const stop = () => {
      ended.push(workerPool.id);
      void heartbeat.stop();
    };
    workerPool.promise.then(stop, stop);
  });
  // Its sends render: the render threads start now, not with a restock's first alerts.
  keepRenderThreadsWarm();
  const start = () => run({
    pgPool: deps.pool,
    concurrency: deps.config.WORKER_CONCURRENCY,
    noHandleSignals: true,
    // Running jobs get most of the shutdown budget before their abort signal fires.
    gracefulShutdownAbortTimeout: Math.floor(deps.config.SHUTDOWN_TIMEOUT_MS * 0.8),
    pollInterval: options.pollInterval ?? 2000,
    logger: workerLogger(deps.log),
    events,
    taskList: registry.taskList(deps),
    parsedCronItems: options.cron === false ? [] : registry.cronItems(),
    // Unbatched completions are fire-and-forget, so a shutdown could close the pool before a
    // finished job is marked complete (it would run again). Batchers are drained on shutdown.
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  });
  const runner = await start().catch(async (error: unknown) => {
    await closeOwnChannels();
    throw error;
  });
  // After a restart: the jobs the ended pool held run again now (not after the reaper's minute),
  // and what its batches left claimed is swept at once, as at a worker's start.
  const restarted = async () => {
    const gone = ended.splice(0);
    if (gone.length > 0) await withTransaction(deps.pool, (db) => releaseWorkers(db, gone, "The worker pool running this attempt ended when the database went away"));
    await enqueueAlertRecovery(deps.pool);
    await enqueueNotificationRecovery(deps.pool);
  };
  const supervised = superviseRunner(runner, start, restarted, deps.log);
  // Beats go on through a graceful stop (its jobs still run, their locks must not look dead);
  // the heartbeat rows are gone before stop() resolves, so the caller may close the pool then.
  const stop = async (reason?: string) => {
    // Marks waiting for the database give up now: their rows stay claimed for the recovery sweep.
    databaseGate.stop();
    try {
      await supervised.stop(reason);
    } finally {
      await Promise.all(heartbeats.map((h) => h.stop()));
      await attempts?.stop();
      await closeOwnChannels();
    }
  };
  return { ...runner, promise: supervised.promise, stop, kill: (reason?: string) => supervised.kill(reason), [Symbol.asyncDispose]: () => stop() };
}
