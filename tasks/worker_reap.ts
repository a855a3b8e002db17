import type { Task } from "graphile-worker";
import type { TaskDeps } from "../src/core/job-task.ts";
import { reapDeadWorkers } from "../src/runtime/worker-reaper.ts";

/** Crontab: frees the jobs of workers whose heartbeat stopped (see src/runtime/worker-reaper.ts). */
export default function workerReap(deps: TaskDeps): Task {
  return async () => {
    const reaped = await reapDeadWorkers(deps.pool, deps.config.WORKER_DEAD_AFTER_SECONDS);
    if (reaped.workerIds.length > 0) deps.log.warn(reaped, "freed the jobs of dead workers");
  };
}
