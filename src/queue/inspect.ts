import type { Db } from "../core/db.ts";
import { QUEUE_RELATIONS } from "./relations.ts";

/**
 * SQL (parameter $1: an app job's id): the queue row of that job a worker holds: its own (key
 * job:<id>), or the keyless one graphile-worker leaves when a locked job is removed (cancelled
 * mid-run) or its key re-queued. Selects locked_by.
 */
export const APP_JOB_RUN_IN_FLIGHT = `select g.locked_by from ${QUEUE_RELATIONS.privateJobs} g
  where g.locked_at is not null and (g.key = 'job:' || $1::text or g.payload ->> 'job_id' = $1::text)`;

interface QueueJobByKey {
  id: string;
  run_at: Date;
  attempts: number;
  max_attempts: number;
  locked_by: string | null;
  locked_at: Date | null;
  last_error: string | null;
}

/** The queue job under `key`, if one is queued or running. */
export async function queueJobByKey(db: Db, key: string): Promise<QueueJobByKey | undefined> {
  const { rows } = await db.query<QueueJobByKey>(
    `select id::text, run_at, attempts, max_attempts::int, locked_by, locked_at, last_error from ${QUEUE_RELATIONS.jobs} where key = $1`,
    [key],
  );
  return rows[0];
}

export interface QueueDepth {
  task: string;
  ready: number;
  scheduled: number;
  running: number;
  failed: number;
}

/** Queue jobs by task: ready, scheduled for later, running, out of attempts. */
export async function queueDepthByTask(db: Db): Promise<QueueDepth[]> {
  const { rows } = await db.query<QueueDepth>(
    `select task_identifier as task,
       count(*) filter (where locked_at is null and attempts < max_attempts and run_at <= now())::int as ready,
       count(*) filter (where locked_at is null and attempts < max_attempts and run_at > now())::int as scheduled,
       count(*) filter (where locked_at is not null)::int as running,
       count(*) filter (where locked_at is null and attempts >= max_attempts)::int as failed
     from ${QUEUE_RELATIONS.jobs} group by 1 order by 1`,
  );
  return rows;
}

/**
 * Whether graphile-worker's job table carries the trigger that completes application jobs
 * (sql/103): a new graphile-worker that rebuilt the table would drop it, and every job without a
 * result would then stay queued at its status_url.
 */
export async function jobCompletionTriggerPresent(db: Db): Promise<boolean> {
  const { rows } = await db.query<{ present: boolean }>(
    `select exists (select 1 from pg_trigger where tgrelid = '${QUEUE_RELATIONS.privateJobs}'::regclass and tgname = 'app_job_runs_completed' and tgenabled <> 'D') as present`,
  );
  return rows[0]?.present === true;
}
