import type { Db } from "./db.ts";
import { V2_BASE_PATH } from "./manifest.ts";

export type JobStatus = "queued" | "running" | "completed" | "failed" | "cancelled";
export const TERMINAL_STATUSES: readonly JobStatus[] = ["completed", "failed", "cancelled"];

export interface JobRow {
  id: string;
  shop_id: string | null;
  kind: string;
  status: JobStatus;
  payload: unknown;
  total: number | null;
  processed: number;
  result: unknown;
  errors: unknown[];
  attempts: number;
  max_attempts: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface JobHandle {
  job_id: string;
  status_url: string;
}

export interface EnqueueOptions {
  shopId: string | null;
  /** Also the graphile-worker task identifier that runs it. */
  kind: string;
  payload?: Record<string, unknown>;
  total?: number | null;
  maxAttempts?: number;
}

export function jobHandle(jobId: string): JobHandle {
  return { job_id: jobId, status_url: `${V2_BASE_PATH}/jobs/${jobId}` };
}

export function jobKey(jobId: string): string {
  return `job:${jobId}`;
}

/**
 * Records the job and queues its work in graphile-worker in one statement. Run it on the client of
 * the write's transaction: a rollback then takes both away, a commit keeps both.
 */
export async function enqueueJob(db: Db, options: EnqueueOptions): Promise<JobHandle> {
  const { rows } = await db.query<{ id: string }>(
    `with job as (
       insert into jobs (shop_id, kind, payload, total, max_attempts)
       values ($1, $2, $3, $4, $5)
       returning id
     )
     select job.id, (graphile_worker.add_job($2, json_build_object('job_id', job.id),
                     max_attempts := $5, job_key := 'job:' || job.id)).id as worker_job_id
     from job`,
    [options.shopId, options.kind, JSON.stringify(options.payload ?? {}), options.total ?? null, options.maxAttempts ?? 5],
  );
  const row = rows[0];
  if (!row) throw new Error("job insert returned no row");
  return jobHandle(row.id);
}

/** Puts a finished or failed job back in the queue with a fresh set of attempts. */
export async function retryJob(db: Db, jobId: string): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `update jobs set status = 'queued', attempts = 0, finished_at = null, updated_at = now()
     where id = $1 and status in ('failed', 'cancelled', 'completed')
     returning *`,
    [jobId],
  );
  const job = rows[0];
  if (!job) return undefined;
  await db.query(
    `select graphile_worker.add_job($1, json_build_object('job_id', $2::uuid), max_attempts := $3, job_key := $4)`,
    [job.kind, job.id, job.max_attempts, jobKey(job.id)],
  );
  return job;
}

/** The public shape of a job (GET /jobs/{job_id}). */
export function presentJob(job: JobRow): Record<string, unknown> {
  return {
    id: job.id,
    kind: job.kind,
    status: job.status,
    total: job.total,
    processed: job.processed,
    result: job.result,
    errors: job.errors,
    created_at: job.created_at.toISOString(),
    started_at: job.started_at?.toISOString() ?? null,
    finished_at: job.finished_at?.toISOString() ?? null,
  };
}
