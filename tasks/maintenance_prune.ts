import type { Task } from "graphile-worker";
import type { TaskDeps } from "../src/core/job-task.ts";
import { pruneFinishedJobs, pruneRateLimitWindows } from "../src/runtime/maintenance.ts";

/** Crontab: removes finished jobs past their retention and spent rate-limit windows. */
export default function maintenancePrune(deps: TaskDeps): Task {
  return async () => {
    const jobs = await pruneFinishedJobs(deps.pool, deps.config.JOB_RETENTION_DAYS);
    const windows = await pruneRateLimitWindows(deps.pool, deps.config.RATE_LIMIT_WINDOW_SECONDS);
    deps.log.info({ jobs, windows }, "pruned finished jobs and rate-limit windows");
  };
}
