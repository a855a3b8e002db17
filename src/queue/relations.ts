/**
 * graphile-worker's relations, for the statements that join them to the application's tables
 * (the console's queue rows, throughput, failing providers, the reaper, recovery sweeps). Only
 * src/queue/ names graphile_worker.* (test/queue-adapter.test.ts holds every other module to it):
 * the schema is graphile-worker's, and a new version may move it.
 */
export const QUEUE_RELATIONS = {
  /** The public view: one row per job, with its task's identifier. */
  jobs: "graphile_worker.jobs",
  /** The table behind it (the console reads job queues and keyless copies from it). */
  privateJobs: "graphile_worker._private_jobs",
  privateTasks: "graphile_worker._private_tasks",
  /** Named job queues (one per offer sync, collected by maintenance.ts). */
  privateJobQueues: "graphile_worker._private_job_queues",
} as const;

/**
 * SQL: a queue job with key `keyExpr` exists that will still run (attempts left); with
 * `unlocked`, one no worker holds yet. `keyExpr` is SQL of the caller's (a column expression).
 */
export function liveJobWithKey(keyExpr: string, options: { unlocked?: boolean } = {}): string {
  return `exists (select 1 from ${QUEUE_RELATIONS.jobs} j where j.key = ${keyExpr} and j.attempts < j.max_attempts${options.unlocked ? " and j.locked_at is null" : ""})`;
}
