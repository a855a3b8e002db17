import pg from "pg";
import { z } from "zod";
import { type Db, withTransaction } from "./db.ts";
import { V2_BASE_PATH } from "./manifest.ts";
import { type TaskRef, declareTask, enqueue } from "./tasks.ts";
import { removeJobByKey } from "../queue/admin.ts";
import { APP_JOB_RUN_IN_FLIGHT } from "../queue/inspect.ts";

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

/**
 * What a job's first attempt needs of its row, queued with it: the run then reads nothing before
 * it starts (bench:jobs: one statement per job fewer). Retries, and runs queued again by
 * `retryJob`, read the row, which may hold an earlier attempt's result or progress.
 */
const jobSnapshot = z.object({
  shop_id: z.uuid().nullable(),
  payload: z.unknown(),
  total: z.number().int().nullable(),
  max_attempts: z.number().int(),
  created_at: z.iso.datetime({ offset: true }),
});

/** The graphile-worker payload of every application job: the row's id, and on a first queueing its snapshot. */
export const jobTaskPayload = z.object({ job_id: z.uuid(), row: jobSnapshot.optional() });

export type JobTaskRef = TaskRef<typeof jobTaskPayload>;

/** An application job's task, for those that queue it (its run: defineJobTask, src/core/job-task.ts). */
export function declareJobTask(ref: { name: string }): JobTaskRef {
  return declareTask({ name: ref.name, payload: jobTaskPayload });
}

/**
 * An application job, for those that queue it: its name (the jobs row's kind and its
 * graphile-worker task) and its payload's schema. Its run is defined beside it with defineJob
 * (src/core/job-task.ts), in its area's jobs/ folder.
 */
export interface JobRef<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly payload: S;
  /** graphile-worker's task that runs it (payload: the row's id and snapshot). */
  readonly task: JobTaskRef;
}

export function declareJob<S extends z.ZodType>(ref: { name: string; payload: S }): JobRef<S> {
  return Object.freeze({ name: ref.name, payload: ref.payload, task: declareJobTask({ name: ref.name }) });
}

interface EnqueueJobOptions {
  /** Every application job belongs to a shop. */
  shopId: string;
  total?: number | null;
  /** 5 when unset. */
  maxAttempts?: number;
}

/** The row behind any job, typed or not (a retry of a stored row, tests of the job layer). */
interface EnqueueJobRowOptions {
  shopId: string | null;
  /** Its name is the row's kind. */
  task: JobTaskRef;
  payload?: Record<string, unknown>;
  total?: number | null;
  maxAttempts?: number;
}

export function jobHandle(jobId: string): JobHandle {
  return { job_id: jobId, status_url: `${V2_BASE_PATH}/jobs/${jobId}` };
}

function jobKey(jobId: string): string {
  return `job:${jobId}`;
}

/**
 * Records the job and queues its work in graphile-worker in one transaction. Run it on the client
 * of the write's transaction: a rollback then takes both away, a commit keeps both (given a pool,
 * it opens a transaction of its own).
 */
export async function enqueueJob<S extends z.ZodType>(db: Db, job: JobRef<S>, payload: z.input<S>, options: EnqueueJobOptions): Promise<JobHandle> {
  // A payload its own schema refuses is a programming error: nothing is written. The row keeps
  // the payload as given; the run parses it again (defaults and all).
  const parsed = job.payload.safeParse(payload);
  if (!parsed.success) throw new Error(`enqueue ${job.name}: payload refused by the job's schema: ${z.prettifyError(parsed.error)}`);
  return enqueueJobRow(db, { shopId: options.shopId, task: job.task, payload: payload as Record<string, unknown>, total: options.total, maxAttempts: options.maxAttempts });
}

/** The jobs row and its queue job, for a row whose payload is already checked (see enqueueJob). */
export async function enqueueJobRow(db: Db, options: EnqueueJobRowOptions): Promise<JobHandle> {
  if (db instanceof pg.Pool) return withTransaction(db, (client) => enqueueJobRow(client, options));
  const maxAttempts = options.maxAttempts ?? 5;
  const payload = options.payload ?? {};
  const total = options.total ?? null;
  const { rows } = await db.query<{ id: string; created_at: Date }>(
    `insert into jobs (shop_id, kind, payload, total, max_attempts) values ($1, $2, $3, $4, $5) returning id, created_at`,
    [options.shopId, options.task.name, JSON.stringify(payload), total, maxAttempts],
  );
  const row = rows[0];
  if (!row) throw new Error("job insert returned no row");
  const snapshot = { shop_id: options.shopId, payload, total, max_attempts: maxAttempts, created_at: row.created_at.toISOString() };
  await enqueue(db, options.task, { job_id: row.id, row: snapshot }, { maxAttempts, jobKey: jobKey(row.id) });
  return jobHandle(row.id);
}

/** The worker running the job right now, if any (whatever its row's status says). */
export async function runInFlight(db: Db, jobId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ locked_by: string | null }>(`${APP_JOB_RUN_IN_FLIGHT} limit 1`, [jobId]);
  return rows[0] ? (rows[0].locked_by ?? "a worker") : undefined;
}

/**
 * Puts a finished or failed job back in the queue with a fresh set of attempts. Not while a run of
 * it still holds its queue row (a job cancelled mid-run): that run's end would be taken for the
 * new one's, and both would run at once.
 */
export async function retryJob(db: Db, jobId: string): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `update jobs set status = 'queued', attempts = 0, finished_at = null, updated_at = now()
     where id = $1 and status in ('failed', 'cancelled', 'completed')
       and not exists (${APP_JOB_RUN_IN_FLIGHT})
     returning *`,
    [jobId],
  );
  const job = rows[0];
  if (!job) return undefined;
  // The row's kind is its task's name; a kind no worker runs stays queued, as it was.
  await enqueue(db, declareJobTask({ name: job.kind }), { job_id: job.id }, { maxAttempts: job.max_attempts, jobKey: jobKey(job.id) });
  return job;
}

/**
 * Why a finished run's result is a refusal, or undefined when it did work: a bulk result
 * (`{ counts, outcomes }`) whose every item was refused or blocked, or a result that says
 * `refused: true` or `status: "refused" | "blocked"`. Such a job ends failed with this reason in
 * its errors, never completed (a refused action never shows as completed).
 */
export function refusalOf(result: unknown): string | undefined {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return undefined;
  const r = result as { counts?: unknown; outcomes?: unknown; refused?: unknown; status?: unknown; reason?: unknown };
  const reason = typeof r.reason === "string" ? `: ${r.reason}` : "";
  if (r.refused === true || r.status === "refused" || r.status === "blocked") return `Refused${reason}`;
  if (typeof r.counts !== "object" || r.counts === null) return undefined;
  const counts = Object.entries(r.counts as Record<string, unknown>).filter(([, n]) => typeof n === "number" && n > 0);
  if (counts.length === 0 || !counts.every(([outcome]) => outcome === "refused" || outcome === "blocked")) return undefined;
  const total = counts.reduce((sum, [, n]) => sum + (n as number), 0);
  const reasons = Array.isArray(r.outcomes)
    ? [...new Set((r.outcomes as { reason?: unknown }[]).map((o) => o.reason).filter((x): x is string => typeof x === "string"))].slice(0, 3)
    : [];
  return `All ${total} item(s) refused${reasons.length ? `: ${reasons.join("; ")}` : ""}`;
}

/**
 * Cancels a queued or running job: status cancelled (its reason in errors) and its queue row
 * removed through graphile-worker's remove_job (a row a worker holds is kept from retrying; the
 * running attempt finds the job no longer queued or running when it next records anything).
 */
export async function cancelJob(db: Db, jobId: string, reason: string): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `update jobs set status = 'cancelled', finished_at = now(), updated_at = now(),
       errors = errors || jsonb_build_array(jsonb_build_object('message', $2::text, 'at', now()))
     where id = $1 and status in ('queued', 'running')
     returning *`,
    [jobId, reason],
  );
  const job = rows[0];
  if (!job) return undefined;
  await removeJobByKey(db, jobKey(job.id));
  return job;
}

/**
 * How far the job is, 0 to 100: 100 once completed; otherwise processed over total, at most 99
 * (the last unit may be done before the job has recorded its result); 0 while the total is unknown.
 */
export function jobProgress(job: Pick<JobRow, "status" | "total" | "processed">): number {
  if (job.status === "completed") return 100;
  if (job.total === null || job.total <= 0) return 0;
  return Math.min(99, Math.floor((job.processed * 100) / job.total));
}

/** The public shape of a job (GET /jobs/{job_id}). */
export function presentJob(job: JobRow): Record<string, unknown> {
  return {
    id: job.id,
    kind: job.kind,
    status: job.status,
    // What other APIs of the store's apps (STOQ's) answer beside the status (issue 31).
    progress: jobProgress(job),
    ready: job.status === "completed",
    total: job.total,
    processed: job.processed,
    result: job.result,
    errors: job.errors,
    created_at: job.created_at.toISOString(),
    started_at: job.started_at?.toISOString() ?? null,
    finished_at: job.finished_at?.toISOString() ?? null,
  };
}
