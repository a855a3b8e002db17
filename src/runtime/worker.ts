import { type Runner, type TaskList, parseCrontab, run } from "graphile-worker";
import { CRONTAB, taskList } from "../../tasks/index.ts";
import type { ServiceTaskDeps } from "../../tasks/deps.ts";
import { workerLogger } from "../logger.ts";

export interface WorkerOptions {
  /** Extra tasks (tests); merged over the service's own. */
  extraTasks?: TaskList;
  crontab?: string;
  pollInterval?: number;
}

/**
 * Starts graphile-worker on the service's pool with every task and the crontab. Signals are the
 * caller's to handle (see runtime/shutdown.ts), so HTTP and the worker stop in one order.
 */
export async function startWorker(deps: ServiceTaskDeps, options: WorkerOptions = {}): Promise<Runner> {
  return run({
    pgPool: deps.pool,
    concurrency: deps.config.WORKER_CONCURRENCY,
    noHandleSignals: true,
    // Running jobs get most of the shutdown budget before their abort signal fires.
    gracefulShutdownAbortTimeout: Math.floor(deps.config.SHUTDOWN_TIMEOUT_MS * 0.8),
    pollInterval: options.pollInterval ?? 2000,
    logger: workerLogger(deps.log),
    taskList: { ...taskList(deps), ...options.extraTasks },
    parsedCronItems: parseCrontab(options.crontab ?? CRONTAB),
    // Unbatched completions are fire-and-forget, so a shutdown could close the pool before a
    // finished job is marked complete (it would run again). Batchers are drained on shutdown.
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  });
}
