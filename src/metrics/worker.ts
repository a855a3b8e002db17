import type { WorkerEvents } from "graphile-worker";
import { jobDuration, jobRuns } from "./registry.ts";

/**
 * Counts job runs from graphile-worker's events: `job:success` is completed; `job:error` is
 * retried while the job has attempts left, failed on its last (graphile-worker's own `job:failed`
 * follows that one and is not counted again). Durations from `job:start`.
 */
export function countJobs(events: WorkerEvents): void {
  const started = new Map<string, number>();
  events.on("job:start", ({ job }) => {
    started.set(job.id, performance.now());
  });
  const finish = (id: string, task: string, outcome: "completed" | "retried" | "failed") => {
    const at = started.get(id);
    started.delete(id);
    jobRuns.inc({ task, outcome });
    if (at !== undefined) jobDuration.observe({ task, outcome }, (performance.now() - at) / 1000);
  };
  events.on("job:success", ({ job }) => finish(job.id, job.task_identifier, "completed"));
  events.on("job:error", ({ job }) => finish(job.id, job.task_identifier, job.attempts >= job.max_attempts ? "failed" : "retried"));
}
