import type { Db } from "../core/db.ts";
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
  limit?: number | undefined;
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

const APP_ROWS = `
  select 'app' as source, j.id::text as id, j.kind as task, j.shop_id::text as shop_id, s.name as shop_name,
    j.status, j.attempts, j.max_attempts, null::timestamptz as run_at, j.created_at, j.updated_at,
    ${APP_LAST_ERROR} as last_error, null::text as locked_by
  from jobs j left join shops s on s.id = j.shop_id`;

/** The payload's `field` as a uuid, or null when it is absent or not one (a cast would fail the query). */
const payloadUuid = (field: string) =>
  `case when q.payload ->> '${field}' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then (q.payload ->> '${field}')::uuid end`;

// The queue row of an app job (key job:<id>, or a keyless copy graphile-worker left when the key
// moved to a new row: payload job_id) belongs to that job's shop; others name theirs in the
// payload, or name a row that has one: a message's send (ledger_id, notification_id), a signup's
// thank-you, tag and provider syncs (signup_id), a platform webhook (delivery_id) and a developer
// webhook (event_id). Without this a shop filter hid the sends and syncs of that shop.
const queueRows = (extra = "") => `
  select 'queue' as source, q.id::text as id, t.identifier as task, s.id::text as shop_id, s.name as shop_name,
    ${QUEUE_STATUS} as status, q.attempts, q.max_attempts::int, q.run_at, q.created_at, q.updated_at,
    q.last_error, q.locked_by${extra}
  from ${QUEUE_RELATIONS.privateJobs} q
  join ${QUEUE_RELATIONS.privateTasks} t on t.id = q.task_id
  left join jobs aj on aj.id::text = case when q.key like 'job:%' then substr(q.key, 5) else q.payload ->> 'job_id' end
  left join bis_ledger bl on bl.id = ${payloadUuid("ledger_id")}
  left join preorder_notifications pn on pn.id = ${payloadUuid("notification_id")}
  left join bis_signups bs on bs.id = ${payloadUuid("signup_id")}
  left join webhook_deliveries wd on t.identifier = 'platform_webhook'
    and wd.id = case when q.payload ->> 'delivery_id' ~ '^[0-9]{1,18}$' then (q.payload ->> 'delivery_id')::bigint end
  left join preorder_webhook_events we on t.identifier = 'preorders_developer_webhook' and we.id = ${payloadUuid("event_id")}
  left join shops s on s.id = coalesce(aj.shop_id, ${payloadUuid("shop_id")}, bl.shop_id, pn.shop_id, bs.shop_id, wd.shop_id, we.shop_id)`;
const QUEUE_ROWS = queueRows();

/** Newest first, app jobs and queue rows together (or one source), filtered. */
export async function listJobs(db: Db, filters: JobFilters): Promise<ListedJob[]> {
  const parts = filters.source === "app" ? [APP_ROWS] : filters.source === "queue" ? [QUEUE_ROWS] : [APP_ROWS, QUEUE_ROWS];
  const { rows } = await db.query<ListedJob>(
    `select * from (${parts.join(" union all ")}) r
     where ($1::text is null or r.status = $1)
       and ($2::text is null or r.task = $2)
       and ($3::text is null or r.shop_id = $3 or lower(r.shop_name) = lower($3))
     order by r.created_at desc, r.id desc
     limit $4`,
    [filters.status ?? null, filters.task || null, filters.shop || null, filters.limit ?? DEFAULT_LIST_LIMIT],
  );
  return rows;
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
  if (!row) return undefined;
  return {
    ...row,
    errors: row.last_error ? [{ attempt: row.attempts, message: row.last_error }] : [],
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
  return { ok: true, message: `Queue job ${id} removed.` };
}
