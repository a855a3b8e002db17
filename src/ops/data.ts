import type { Db } from "../core/db.ts";
import { type RecordedAttempt, attemptsOf, recordCancelled } from "./attempts.ts";
import { type JobStatus, TERMINAL_STATUSES, cancelJob, retryJob, runInFlight } from "../core/jobs.ts";
import { deleteUnlockedJob, removeJobByKey, rescheduleNow } from "../queue/admin.ts";
import { queueJobByKey } from "../queue/inspect.ts";
import { QUEUE_RELATIONS } from "../queue/relations.ts";

export type JobSource = "app" | "queue";
export const JOB_SOURCES: readonly JobSource[] = ["app", "queue"];
/** Statuses a console row can have: an app job's, or a queue row's (queued, scheduled, running, failed). */
export const LIST_STATUSES = ["queued", "scheduled", "running", "completed", "failed", "cancelled"] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];
const DEFAULT_LIST_LIMIT = 200;

export interface JobFilters {
  source?: JobSource | undefined;
  status?: ListStatus | undefined;
  task?: string | undefined;
  /** A shop's id, or its name (case-insensitive). */
  shop?: string | undefined;
  /** Text searched in the payload (its ids), the recipient and the errors; a job id matches itself. */
  q?: string | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

/** One row of the console's job list and `jobs list --source`: an app job or a graphile-worker queue row. */
export interface ListedJob {
  source: JobSource;
  id: string;
  task: string;
  shop_id: string | null;
  shop_name: string | null;
  status: string;
  attempts: number;
  max_attempts: number;
  run_at: Date | null;
  created_at: Date;
  updated_at: Date;
  last_error: string | null;
  locked_by: string | null;
}

// A queue row's status from graphile-worker's columns: locked = running, out of attempts = failed.
const QUEUE_STATUS = `case when q.locked_at is not null then 'running'
  when q.attempts >= q.max_attempts then 'failed'
  when q.run_at > now() then 'scheduled' else 'queued' end`;

// An app job's last error: the message of the last entry of errors.
const APP_LAST_ERROR = `case when jsonb_typeof(j.errors) = 'array' and jsonb_array_length(j.errors) > 0
  then coalesce(j.errors -> -1 ->> 'message', (j.errors -> -1)::text) end`;

/** The payload's `field` as a uuid, or null when it is absent or not one (a cast would fail the query). */
const payloadUuid = (payload: string, field: string) =>
  `case when ${payload} ->> '${field}' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then (${payload} ->> '${field}')::uuid end`;

// The text a search looks in besides the id: the payload (its ids), the errors, and the recipient
// of the message or signup the job is about.
const APP_ROWS = `
  select 'app' as source, j.id::text as id, j.kind as task, j.shop_id::text as shop_id, s.name as shop_name,
    j.status, j.attempts, j.max_attempts, null::timestamptz as run_at, j.created_at, j.updated_at,
    ${APP_LAST_ERROR} as last_error, null::text as locked_by,
    j.payload::text || ' ' || coalesce(j.errors::text, '') as search, null::text as app_job
  from jobs j left join shops s on s.id = j.shop_id`;

// A queue job's shop: the queue row of an app job (key job:<id>, or a keyless copy graphile-worker
// left when the key moved to a new row: payload job_id) belongs to that job's shop; others name
// theirs in the payload, or name a row that has one: a message's send (ledger_id,
// notification_id), a signup's thank-you, tag and provider syncs (signup_id), a platform webhook
// (delivery_id) and a developer webhook (event_id). Without this a shop filter hid the sends and
// syncs of that shop. `p` is the payload, `task` the task's name, `appJob` the app job's id as text.
const refJoins = (p: string, task: string, appJob: string) => `
  left join jobs aj on aj.id::text = ${appJob}
  left join bis_ledger bl on bl.id = ${payloadUuid(p, "ledger_id")}
  left join bis_signups bls on bls.id = bl.signup_id
  left join preorder_notifications pn on pn.id = ${payloadUuid(p, "notification_id")}
  left join bis_signups bs on bs.id = ${payloadUuid(p, "signup_id")}
  left join webhook_deliveries wd on ${task} = 'platform_webhook'
    and wd.id = case when ${p} ->> 'delivery_id' ~ '^[0-9]{1,18}$' then (${p} ->> 'delivery_id')::bigint end
  left join preorder_webhook_events we on ${task} = 'preorders_developer_webhook' and we.id = ${payloadUuid(p, "event_id")}
  left join shops s on s.id = coalesce(aj.shop_id, ${payloadUuid(p, "shop_id")}, bl.shop_id, pn.shop_id, bs.shop_id, wd.shop_id, we.shop_id)`;
const RECIPIENT = "coalesce(bls.contact, pn.recipient, bs.contact, '')";
/** The errors of a queue job's recorded runs (job_attempts), for the search. */
const RUN_ERRORS = (queueJobId: string) => `coalesce((select string_agg(a.error, ' ') from job_attempts a where a.queue_job_id = ${queueJobId}), '')`;

const queueRows = (extra = "") => `
  select 'queue' as source, q.id::text as id, t.identifier as task, s.id::text as shop_id, s.name as shop_name,
    ${QUEUE_STATUS} as status, q.attempts, q.max_attempts::int, q.run_at, q.created_at, q.updated_at,
    q.last_error, q.locked_by, q.payload::text || ' ' || coalesce(q.last_error, '') || ' ' || ${RECIPIENT} || ' ' || ${RUN_ERRORS("q.id")} as search, aj.id::text as app_job${extra}
  from ${QUEUE_RELATIONS.privateJobs} q
  join ${QUEUE_RELATIONS.privateTasks} t on t.id = q.task_id
  ${refJoins("q.payload", "t.identifier", "case when q.key like 'job:%' then substr(q.key, 5) else q.payload ->> 'job_id' end")}`;
const QUEUE_ROWS = queueRows();

// Finished queue jobs graphile-worker deleted (or that an operator removed), from the history the
// worker records (sql/140): listed as the queue rows they were. An app job's runs are not listed
// again: the app job's own row is kept.
const historyRows = (extra = "", appJobs = false) => `
  select 'queue' as source, h.queue_job_id::text as id, h.task, s.id::text as shop_id, s.name as shop_name,
    h.status, h.attempts, h.max_attempts, null::timestamptz as run_at, h.created_at, h.finished_at as updated_at,
    h.last_error, null::text as locked_by, coalesce(h.payload::text, '') || ' ' || coalesce(h.last_error, '') || ' ' || ${RECIPIENT} || ' ' || ${RUN_ERRORS("h.queue_job_id")} as search, h.app_job_id::text as app_job${extra}
  from job_history h
  ${refJoins("h.payload", "h.task", "h.app_job_id::text")}
  where ${appJobs ? "" : "h.app_job_id is null and "}not exists (select 1 from ${QUEUE_RELATIONS.privateJobs} live where live.id = h.queue_job_id)`;
const HISTORY_ROWS = historyRows();

const LISTED = "source, id, task, shop_id, shop_name, status, attempts, max_attempts, run_at, created_at, updated_at, last_error, locked_by";

/** The list's statement; `columns` what it selects of each row (the listed fields, or more: the bulk actions take app_job). */
export function listQuery(filters: JobFilters, columns = LISTED): { text: string; values: unknown[] } {
  const parts = filters.source === "app" ? [APP_ROWS] : filters.source === "queue" ? [QUEUE_ROWS, HISTORY_ROWS] : [APP_ROWS, QUEUE_ROWS, HISTORY_ROWS];
  const q = filters.q?.trim() || null;
  return {
    text: `select ${columns}, count(*) over ()::int as total from (${parts.join(" union all ")}) r
     where ($1::text is null or r.status = $1)
       and ($2::text is null or r.task = $2)
       and ($3::text is null or r.shop_id = $3 or lower(r.shop_name) = lower($3))
       and ($5::text is null or r.id = $5 or strpos(lower(r.search), lower($5)) > 0)
     order by r.created_at desc, r.id desc
     limit $4 offset $6`,
    values: [filters.status ?? null, filters.task || null, filters.shop || null, filters.limit ?? DEFAULT_LIST_LIMIT, q, filters.offset ?? 0],
  };
}

/** Newest first, app jobs and queue rows together (or one source), finished queue jobs from the history, filtered. */
export async function listJobs(db: Db, filters: JobFilters): Promise<ListedJob[]> {
  return (await listJobsPage(db, filters)).jobs;
}

/** One page of listJobs and how many rows the filters match in all. */
export async function listJobsPage(db: Db, filters: JobFilters): Promise<{ jobs: ListedJob[]; total: number }> {
  const query = listQuery(filters);
  const { rows } = await db.query<ListedJob & { total: number }>(query.text, query.values);
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && (filters.offset ?? 0) > 0) {
    // Past the last page: still say how many there are.
    const first = listQuery({ ...filters, offset: 0, limit: 1 });
    const { rows: all } = await db.query<{ total: number }>(first.text, first.values);
    total = all[0]?.total ?? 0;
  }
  return { jobs: rows.map(({ total: _total, ...job }) => job), total };
}

export interface JobDetail extends ListedJob {
  payload: unknown;
  /** App jobs: every recorded error (one per failed attempt). Queue rows: the last error only. */
  errors: unknown[];
  result: unknown;
  processed: number | null;
  total: number | null;
  started_at: Date | null;
  finished_at: Date | null;
  locked_at: Date | null;
  key: string | null;
  /** For a queue row: the app job it runs, if any (retried and cancelled as that job). */
  app_job_id: string | null;
  /** For an app job: its queue row (graphile-worker), if any. */
  queue_row: { id: string; run_at: Date; attempts: number; max_attempts: number; locked_by: string | null; last_error: string | null } | null;
  can_retry: boolean;
  can_cancel: boolean;
  /** Every run recorded by the worker (job_attempts), oldest first, those before a retry included. */
  attempt_log: RecordedAttempt[];
  /** A finished queue job graphile-worker no longer holds, read from the history (job_history). */
  from_history: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function getJob(db: Db, source: JobSource, id: string): Promise<JobDetail | undefined> {
  if (source === "app") {
    if (!UUID.test(id)) return undefined;
    const { rows } = await db.query<Omit<JobDetail, "queue_row" | "can_retry" | "can_cancel" | "locked_at" | "key">>(
      `select 'app' as source, j.id::text as id, j.kind as task, j.shop_id::text as shop_id, s.name as shop_name, j.status,
         j.attempts, j.max_attempts, null::timestamptz as run_at, j.created_at, j.updated_at, ${APP_LAST_ERROR} as last_error,
         null::text as locked_by, j.payload, j.errors, j.result, j.processed, j.total, j.started_at, j.finished_at
       from jobs j left join shops s on s.id = j.shop_id where j.id = $1`,
      [id],
    );
    const job = rows[0];
    if (!job) return undefined;
    const q = await queueJobByKey(db, `job:${id}`);
    const status = job.status as JobStatus;
    const inFlight = await runInFlight(db, id);
    return {
      ...job,
      attempt_log: await attemptsOf(db, { appJobId: id }),
      from_history: false,
      app_job_id: null,
      run_at: q?.run_at ?? null,
      locked_by: q?.locked_by ?? null,
      locked_at: q?.locked_at ?? null,
      key: `job:${id}`,
      errors: Array.isArray(job.errors) ? job.errors : [job.errors],
      queue_row: q ? { id: q.id, run_at: q.run_at, attempts: q.attempts, max_attempts: q.max_attempts, locked_by: q.locked_by, last_error: q.last_error } : null,
      can_retry: TERMINAL_STATUSES.includes(status) && inFlight === undefined,
      can_cancel: status === "queued" || status === "running",
    };
  }
  if (!/^\d{1,18}$/.test(id)) return undefined;
  const { rows } = await db.query<ListedJob & { payload: unknown; locked_at: Date | null; key: string | null; app_job_id: string | null }>(
    `${queueRows(", q.payload, q.locked_at, q.key, aj.id::text as app_job_id")} where q.id = $1`,
    [id],
  );
  const row = rows[0];
  const attemptLog = await attemptsOf(db, { queueJobId: id });
  const recordedErrors = attemptLog.filter((a) => a.error !== null).map((a) => ({ attempt: a.attempt, at: a.finished_at?.toISOString(), message: a.error }));
  if (!row) return historyJob(db, id, attemptLog, recordedErrors);
  const last = recordedErrors.at(-1);
  return {
    ...row,
    attempt_log: attemptLog,
    from_history: false,
    // Every recorded failure; graphile-worker's last_error too when the recorder did not see it (a run before sql/140).
    errors: row.last_error && last?.message !== row.last_error ? [...recordedErrors, { attempt: row.attempts, message: row.last_error }] : recordedErrors,
    result: null,
    processed: null,
    total: null,
    started_at: null,
    finished_at: null,
    queue_row: null,
    // graphile-worker's functions leave a locked row alone (until its lock is 4 hours old).
    // An app job's run is retried as that job (retryJob: fresh attempts, its row read again, not
    // the snapshot its first queueing carried); rescheduling the queue row would run it unrecorded.
    can_retry: row.app_job_id === null && row.locked_at === null && (row.status === "failed" || row.status === "scheduled" || row.attempts > 0),
    can_cancel: row.locked_at === null,
  };
}

/** A finished queue job from the history: what it was and how it ended; nothing left to retry or cancel. */
async function historyJob(db: Db, id: string, attemptLog: RecordedAttempt[], errors: unknown[]): Promise<JobDetail | undefined> {
  const { rows } = await db.query<ListedJob & { payload: unknown; key: string | null; app_job_id: string | null; finished_at: Date }>(
    `select ${LISTED}, payload, key, app_job_id, finished_at from (${historyRows(", h.payload, h.job_key as key, h.app_job_id::text as app_job_id, h.finished_at", true)}) r
     where id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row) return undefined;
  const lastError = row.last_error;
  return {
    ...row,
    attempt_log: attemptLog,
    from_history: true,
    errors: lastError && !errors.some((e) => (e as { message?: unknown }).message === lastError) ? [...errors, { attempt: row.attempts, message: lastError }] : errors,
    result: null,
    processed: null,
    total: null,
    started_at: attemptLog[0]?.started_at ?? null,
    locked_at: null,
    queue_row: null,
    can_retry: false,
    can_cancel: false,
  };
}

interface ActionOutcome {
  ok: boolean;
  message: string;
}

/** Retry: an app job through retryJob; a queue row rescheduled now with fresh attempts. */
export async function retry(db: Db, source: JobSource, id: string): Promise<ActionOutcome> {
  const job = await getJob(db, source, id);
  if (!job) return { ok: false, message: "Job not found." };
  if (job.app_job_id) return { ok: false, message: `Queue job ${id} runs app job ${job.app_job_id}: retry that job.` };
  if (!job.can_retry) {
    // A finished app job is kept from retrying only by a run of it a worker still holds (getJob).
    const held = source === "app" && TERMINAL_STATUSES.includes(job.status as JobStatus);
    return { ok: false, message: held ? `Job ${id}'s last run is still finishing on a worker: retry it once that run stops.` : `A ${job.status} job cannot be retried.` };
  }
  if (source === "app") {
    const retried = await retryJob(db, id);
    return retried ? { ok: true, message: `Job ${id} queued again.` } : { ok: false, message: "The job changed meanwhile; not retried." };
  }
  return (await rescheduleNow(db, id)) ? { ok: true, message: `Queue job ${id} rescheduled to run now.` } : { ok: false, message: "The job is locked by a worker; not retried." };
}

/** Cancel: an app job cancelled and its queue row removed; a queue row removed (or, when keyless, failed permanently). */
export async function cancel(db: Db, source: JobSource, id: string): Promise<ActionOutcome> {
  const job = await getJob(db, source, id);
  if (!job) return { ok: false, message: "Job not found." };
  if (!job.can_cancel) return { ok: false, message: `A ${job.status} job cannot be cancelled.` };
  if (source === "app") {
    const cancelled = await cancelJob(db, id, "Cancelled by an operator");
    return cancelled ? { ok: true, message: `Job ${id} cancelled.` } : { ok: false, message: "The job finished meanwhile; not cancelled." };
  }
  if (job.key) {
    await removeJobByKey(db, job.key);
  } else if (!(await deleteUnlockedJob(db, id))) {
    return { ok: false, message: "The job is locked by a worker; not cancelled." };
  }
  // Kept in the history: the console lists it as cancelled, not as gone.
  await recordCancelled(db, [{ id, task_identifier: job.task, key: job.key, attempts: job.attempts, max_attempts: job.max_attempts, payload: job.payload, created_at: job.created_at }], "Cancelled by an operator");
  return { ok: true, message: `Queue job ${id} removed.` };
}
