import type { Db } from "../core/db.ts";

/** One add_job call, its arguments as graphile-worker names them (null: its default). */
export interface AddJobSpec {
  identifier: string;
  /** The payload, serialized. */
  payload: string;
  queueName: string | null;
  runAt: Date | null;
  /** Seconds after the database's now(), when runAt is null. */
  delaySeconds: number | null;
  maxAttempts: number | null;
  jobKey: string | null;
  priority: number | null;
  jobKeyMode: "replace" | "preserve_run_at" | "unsafe_dedupe" | null;
}

const ADD_JOB = `select (graphile_worker.add_job(
       identifier => $1::text,
       payload => $2::json,
       queue_name => $3::text,
       run_at => coalesce($4::timestamptz, now() + make_interval(secs => $5::float8)),
       max_attempts => $6::int,
       job_key => $7::text,
       priority => $8::int,
       job_key_mode => $9::text
     )).id`;

/**
 * graphile-worker's add_job on `db` (in the caller's transaction when it is one): the job's id, or
 * null when a worker claimed the keyed job in the middle of it (graphile/worker#580).
 */
export async function addJob(db: Db, spec: AddJobSpec): Promise<string | null> {
  const values = [spec.identifier, spec.payload, spec.queueName, spec.runAt, spec.delaySeconds, spec.maxAttempts, spec.jobKey, spec.priority, spec.jobKeyMode];
  const id = (await db.query<{ id: string | null }>(ADD_JOB, values)).rows[0]?.id;
  if (id === undefined) throw new Error(`add_job answered no row for ${spec.identifier}`);
  return id;
}
