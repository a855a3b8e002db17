import type { Db } from "../core/db.ts";
import { QUEUE_RELATIONS } from "./relations.ts";

/** Removes the waiting job under `key` (graphile-worker's remove_job; a running one finishes, and is not retried). */
export async function removeJobByKey(db: Db, key: string): Promise<void> {
  await db.query("select graphile_worker.remove_job($1)", [key]);
}

/** Deletes a keyless queue job no worker holds; false when it is locked (or gone). */
export async function deleteUnlockedJob(db: Db, id: string): Promise<boolean> {
  const { rowCount } = await db.query(`delete from ${QUEUE_RELATIONS.privateJobs} where id = $1 and locked_at is null`, [id]);
  return (rowCount ?? 0) > 0;
}

/** Runs a queue job now with a fresh set of attempts (reschedule_jobs); false when a worker holds it. */
export async function rescheduleNow(db: Db, id: string): Promise<boolean> {
  const { rowCount } = await db.query("select * from graphile_worker.reschedule_jobs(array[$1::bigint], run_at := now(), attempts := 0)", [id]);
  return (rowCount ?? 0) > 0;
}

/**
 * Uses up the attempts of the job a worker is running, so the failure it records next is final:
 * graphile-worker has no call that fails a locked job (permanently_fail_jobs skips one).
 */
export async function endAttempts(db: Db, id: string): Promise<void> {
  await db.query(`update ${QUEUE_RELATIONS.privateJobs} set max_attempts = attempts where id = $1`, [id]);
}

/** Frees every job the given workers hold (force_unlock_workers). */
export async function forceUnlockWorkers(db: Db, workerIds: readonly string[]): Promise<void> {
  await db.query("select graphile_worker.force_unlock_workers($1::text[])", [workerIds]);
}

/** Records `message` as the last error of jobs out of attempts (permanently_fail_jobs). */
export async function permanentlyFailJobs(db: Db, ids: readonly string[], message: string): Promise<void> {
  await db.query("select from graphile_worker.permanently_fail_jobs($1::bigint[], $2)", [ids, message]);
}

/**
 * Brings the waiting job under `key` forward to now (reschedule_jobs: a job a worker holds is left
 * as it is). Answers how many jobs moved: 0 or 1.
 */
export async function runNowByKey(db: Db, key: string): Promise<number> {
  const { rowCount } = await db.query(
    `select * from graphile_worker.reschedule_jobs(array(select id from ${QUEUE_RELATIONS.privateJobs} where key = $1), run_at := now())`,
    [key],
  );
  return rowCount ?? 0;
}
