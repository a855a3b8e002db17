import { randomUUID } from "node:crypto";
import type { Job, WorkerEvents } from "graphile-worker";
import type pg from "pg";
import type { Db } from "../core/db.ts";
import { isUuid } from "../core/params.ts";
import { PermanentJobFailure } from "../core/tasks.ts";
import type { Log } from "../logger.ts";

/**
 * Every run of every queue job, recorded from graphile-worker's public events into job_attempts
 * (sql/140, decision 0251): graphile-worker keeps one last_error per job, resets attempts on a
 * retry and deletes a job once it completes; these rows keep what happened, for the console's job
 * page (every attempt), its finished-jobs history, the throughput and the graph.
 *
 * Writes are batched: the events only fill a buffer, flushed in one statement every
 * FLUSH_MS (or at FLUSH_ROWS rows), so a job's run costs no round trip of its own. A crash loses
 * at most the last flush's worth of history, never a job.
 *
 * What a run costs the database is kept to at most one row (sql/141, bench:jobs: the recorder
 * that wrote a row at each start, upserted it at the end and added a history row for every job
 * took the application jobs' no-op drain to 81% of the same without it): a run is written once,
 * when it ends (a run under way is the queue row graphile-worker holds, locked), by a plain insert
 * into a table without a primary key. An application job keeps its own row in jobs, with its
 * errors: its runs get no history row, and its first run, when it succeeds, no attempt row either.
 * A plain queue job's end gets its history row; a job an operator cancelled, its cancelled row.
 */

const FLUSH_MS = 200;
const FLUSH_ROWS = 500;
/** A buffer that cannot be written (the database is away) keeps at most this many rows. */
const MAX_BUFFERED = 10_000;
/** A payload larger than this (as JSON) is kept as its short scalar fields only. */
const MAX_PAYLOAD_CHARS = 8192;
const MAX_ERROR_CHARS = 4000;

/** An attempt's outcome; cancelled is a history row only (an operator removed the job, no run). */
type Outcome = "running" | "completed" | "retrying" | "failed" | "cancelled";

interface AttemptRow {
  id: string;
  queue_job_id: string;
  app_job_id: string | null;
  task: string;
  job_key: string | null;
  attempt: number;
  max_attempts: number;
  worker_id: string | null;
  /** Written to the history only (a job's end), not to each attempt. */
  payload: unknown;
  created_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  outcome: Outcome;
  error: string | null;
}

/** The payload as kept: itself, or (too large) its short scalar fields and its size. */
export function keptPayload(payload: unknown): unknown {
  const text = JSON.stringify(payload ?? null);
  if (text.length <= MAX_PAYLOAD_CHARS) return payload ?? null;
  const kept: Record<string, unknown> = { _truncated_chars: text.length };
  if (typeof payload === "object" && payload !== null && !Array.isArray(payload)) {
    for (const [name, value] of Object.entries(payload)) {
      if (typeof value === "number" || typeof value === "boolean" || (typeof value === "string" && value.length <= 200)) kept[name] = value;
    }
  }
  return kept;
}

function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message || String(error) : typeof error === "string" ? error : JSON.stringify(error) ?? String(error);
  return text.slice(0, MAX_ERROR_CHARS);
}

const appJobOf = (job: Job): string | null => {
  const id = (job.payload as { job_id?: unknown } | null)?.job_id;
  return typeof id === "string" && isUuid(id) ? id : null;
};

// One statement per flush: the ended runs, and the history row of each job whose run ended it
// (completed, or failed for good) unless it is an application job's run, or that an operator
// cancelled: its latest end wins.
const UPSERT = `with r as (
    select * from jsonb_to_recordset($1::jsonb) as r(id uuid, queue_job_id bigint, app_job_id uuid, task text, job_key text, attempt int,
      max_attempts int, worker_id text, payload jsonb, created_at timestamptz, started_at timestamptz, finished_at timestamptz, outcome text, error text)
  ), attempts as (
    insert into job_attempts (id, queue_job_id, app_job_id, task, job_key, attempt, max_attempts, worker_id, started_at, finished_at, outcome, error)
    select id, queue_job_id, app_job_id, task, job_key, attempt, max_attempts, worker_id, started_at, finished_at, outcome, error from r
    where outcome <> 'cancelled'
  )
  insert into job_history (queue_job_id, app_job_id, task, job_key, status, attempts, max_attempts, worker_id, payload, created_at, finished_at, last_error)
  select distinct on (queue_job_id) queue_job_id, app_job_id, task, job_key, outcome, attempt, max_attempts, worker_id, payload,
    coalesce(created_at, started_at, finished_at), finished_at, error
  from r where ((outcome in ('completed', 'failed') and app_job_id is null) or outcome = 'cancelled') and finished_at is not null
  order by queue_job_id, finished_at desc
  on conflict (queue_job_id) do update set status = excluded.status, attempts = excluded.attempts, max_attempts = excluded.max_attempts,
    worker_id = excluded.worker_id, payload = excluded.payload, finished_at = excluded.finished_at, last_error = excluded.last_error
  where excluded.finished_at >= job_history.finished_at`;

export interface AttemptRecorder {
  /** Writes what is buffered now (tests; stop). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  stop(): Promise<void>;
}

/** Records every run of the worker's jobs from its events into job_attempts, each once it has ended. */
export function recordJobAttempts(events: WorkerEvents, pool: pg.Pool, log: Log): AttemptRecorder {
  // When the run under way of each job started (by graphile-worker's id), until it ends: only a
  // number per run, so a run that is not written costs next to nothing.
  const started = new Map<string, number>();
  // Ended runs to write, by attempt id.
  let buffer = new Map<string, AttemptRow>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let stopped = false;

  const write = async (rows: AttemptRow[]) => {
    try {
      await pool.query(UPSERT, [JSON.stringify(rows)]);
    } catch (error) {
      log.warn({ err: error, rows: rows.length }, "could not record job attempts; kept for the next flush");
      for (const row of rows) if (buffer.size < MAX_BUFFERED && !buffer.has(row.id)) buffer.set(row.id, row);
    }
  };
  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (buffer.size > 0) {
      const rows = [...buffer.values()];
      buffer = new Map();
      // One flush at a time, in order: a run's end never lands before its start.
      writing = writing.then(() => write(rows));
    }
    return writing;
  };
  const keep = (row: AttemptRow) => {
    buffer.set(row.id, { ...row });
    if (buffer.size >= FLUSH_ROWS) void flush();
    else if (!timer && !stopped) {
      timer = setTimeout(() => void flush(), FLUSH_MS);
      timer.unref();
    }
  };
  const rowOf = (job: Job, workerId: string | null): AttemptRow => ({
    id: randomUUID(),
    queue_job_id: job.id,
    app_job_id: appJobOf(job),
    task: job.task_identifier,
    job_key: job.key,
    attempt: job.attempts,
    max_attempts: job.max_attempts,
    worker_id: workerId,
    payload: null,
    created_at: new Date(job.created_at).toISOString(),
    started_at: null,
    finished_at: null,
    outcome: "running",
    error: null,
  });
  const end = (job: Job, workerId: string, outcome: Outcome, error: string | null): AttemptRow | undefined => {
    const startedAt = started.get(job.id);
    started.delete(job.id);
    // An application job's first run that succeeds says nothing its jobs row does not (when it
    // started and finished, completed): not written. Every failed run, and a success after one, is.
    if (outcome === "completed" && job.attempts <= 1 && appJobOf(job) !== null) return undefined;
    const row = rowOf(job, workerId);
    Object.assign(row, { started_at: startedAt === undefined ? null : new Date(startedAt).toISOString(), finished_at: new Date().toISOString(), outcome, error });
    if (outcome !== "retrying") row.payload = keptPayload(job.payload);
    keep(row);
    return row;
  };
  // job:failed follows job:error when the job is out of attempts: the row job:error ended.
  const lastEnded = new Map<string, AttemptRow>();

  events.on("job:start", ({ job }) => {
    started.set(job.id, Date.now());
  });
  events.on("job:success", ({ job, worker }) => {
    end(job, worker.workerId, "completed", null);
  });
  events.on("job:error", ({ job, worker, error }) => {
    // A PermanentJobFailure ends the job whatever its attempts (the task registry uses them up).
    const last = job.attempts >= job.max_attempts || error instanceof PermanentJobFailure;
    const row = end(job, worker.workerId, last ? "failed" : "retrying", errorMessage(error));
    if (row) lastEnded.set(job.id, row);
  });
  events.on("job:failed", ({ job }) => {
    // Still to be written (it follows job:error at once): once written, a row is not written again.
    const row = lastEnded.get(job.id);
    if (row && row.outcome !== "failed" && buffer.has(row.id)) keep(Object.assign(row, { outcome: "failed" as const, payload: keptPayload(job.payload) }));
  });
  events.on("job:complete", ({ job }) => {
    lastEnded.delete(job.id);
  });

  return {
    flush,
    async stop() {
      stopped = true;
      await flush();
    },
  };
}

/**
 * Removal from the queue by an operator (the console's bulk cancel): one row per job saying so,
 * as no worker event tells of it.
 */
export async function recordCancelled(
  db: Db,
  jobs: readonly { id: string; task_identifier: string; key: string | null; attempts: number; max_attempts: number; payload: unknown; created_at: Date }[],
  reason: string,
): Promise<void> {
  if (jobs.length === 0) return;
  const now = new Date().toISOString();
  const rows: AttemptRow[] = jobs.map((job) => ({
    id: randomUUID(),
    queue_job_id: job.id,
    app_job_id: ((id: unknown) => (typeof id === "string" && isUuid(id) ? id : null))((job.payload as { job_id?: unknown } | null)?.job_id),
    task: job.task_identifier,
    job_key: job.key,
    attempt: job.attempts,
    max_attempts: job.max_attempts,
    worker_id: null,
    payload: keptPayload(job.payload),
    created_at: job.created_at.toISOString(),
    started_at: null,
    finished_at: now,
    outcome: "cancelled",
    error: reason,
  }));
  await db.query(UPSERT, [JSON.stringify(rows)]);
}

/** Attempts and finished jobs past JOB_RETENTION_DAYS (the maintenance_prune crontab entry): how many rows went. */
export async function pruneJobHistory(db: Db, retentionDays: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `with a as (delete from job_attempts where coalesce(finished_at, started_at, recorded_at) < now() - make_interval(days => $1) returning 1),
       h as (delete from job_history where finished_at < now() - make_interval(days => $1) returning 1)
     select ((select count(*) from a) + (select count(*) from h))::int as n`,
    [retentionDays],
  );
  return rows[0]?.n ?? 0;
}

export interface RecordedAttempt {
  id: string;
  queue_job_id: string;
  task: string;
  attempt: number;
  max_attempts: number;
  worker_id: string | null;
  started_at: Date | null;
  finished_at: Date | null;
  outcome: Outcome;
  error: string | null;
}

/** A job's runs, oldest first: a queue job's (by its id), or an application job's (every queue job that ran it). */
export async function attemptsOf(db: Db, ref: { queueJobId: string } | { appJobId: string }): Promise<RecordedAttempt[]> {
  const [where, value] = "queueJobId" in ref ? ["queue_job_id = $1::bigint", ref.queueJobId] : ["app_job_id = $1::uuid", ref.appJobId];
  const { rows } = await db.query<RecordedAttempt>(
    `select id, queue_job_id::text, task, attempt, max_attempts, worker_id, started_at, finished_at, outcome, error
     from job_attempts where ${where} order by coalesce(started_at, finished_at), recorded_at limit 500`,
    [value],
  );
  return rows;
}
