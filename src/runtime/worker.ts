import { type Runner, type TaskList, parseCrontab, run } from "graphile-worker";
import { CRONTAB, taskList } from "../../tasks/index.ts";
import type { TaskDeps } from "../core/job-task.ts";
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
export async function startWorker(deps: TaskDeps, options: WorkerOptions = {}): Promise<Runner> {
  return run({
    pgPool: deps.pool,
    concurrency: deps.config.WORKER_CONCURRENCY,
    noHandleSignals: true,
    pollInterval: options.pollInterval ?? 2000,
    logger: workerLogger(deps.log),
    taskList: { ...taskList(deps), ...options.extraTasks },
    parsedCronItems: parseCrontab(options.crontab ?? CRONTAB),
  });
}
