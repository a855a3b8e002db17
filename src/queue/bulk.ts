import type { Db } from "../core/db.ts";

/**
 * graphile-worker's public helpers over many jobs at once (the SQL functions WorkerUtils'
 * completeJobs, rescheduleJobs and permanentlyFailJobs call), for the console's bulk actions. Each
 * leaves a job a worker holds as it is, and answers the jobs it changed.
 */

/** Removes the jobs (complete_jobs): what they were, for the history. */
export async function completeJobs(db: Db, ids: readonly string[]): Promise<{ id: string; task_identifier: string; key: string | null; attempts: number; max_attempts: number; payload: unknown; created_at: Date }[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: string; task_identifier: string; key: string | null; attempts: number; max_attempts: number; payload: unknown; created_at: Date }>(
    `select c.id::text, t.identifier as task_identifier, c.key, c.attempts, c.max_attempts::int, c.payload, c.created_at
     from graphile_worker.complete_jobs($1::bigint[]) c left join graphile_worker._private_tasks t on t.id = c.task_id`,
    [ids],
  );
  return rows;
}

/** Runs the jobs now with a fresh set of attempts (reschedule_jobs): the ids rescheduled. */
export async function rescheduleJobsNow(db: Db, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: string }>("select id::text from graphile_worker.reschedule_jobs($1::bigint[], run_at := now(), attempts := 0)", [ids]);
  return rows.map((r) => r.id);
}
