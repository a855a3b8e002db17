import pg from "pg";
import { type z, prettifyError } from "zod";
import { type JobRef, type JobRow, jobTaskPayload, refusalOf } from "./jobs.ts";
import { ShopUninstalled, UNINSTALLED_SKIP } from "../platform/installation.ts";
import { PermanentJobFailure, type TaskContext, type TaskDefinition, defineTask } from "./tasks.ts";

type JobTaskPayload = z.output<typeof jobTaskPayload>;

interface JobContext extends TaskContext {
  job: JobRow;
  /** Records how far the job has got; visible at its status_url. */
  progress(processed: number, total?: number): Promise<void>;
}

type JobHandler = (ctx: JobContext) => Promise<unknown>;

/**
 * What a job's `errors` (and so its status_url) may say of a failure. A database error's text
 * names tables, constraints and values: the shop sees that one failed, the log has the rest.
 */
function errorEntry(error: unknown, attempt: number): Record<string, unknown> {
  const message =
    error instanceof pg.DatabaseError
      ? "Internal database error (details in the service log)"
      : error instanceof Error
        ? error.message
        : String(error);
  return { attempt, message, at: new Date().toISOString() };
}

/**
 * The bookkeeping updates around a run commit without waiting for their WAL flush (one fsync
 * each: bench:jobs measured the job layer at ~30% of raw graphile-worker with them). Visibility is
 * unchanged; only durability is deferred, and graphile-worker's own complete_job/fail_job, which
 * commits synchronously right after, flushes the WAL past them. A crash before that loses at most
 * the row's latest status while the job itself runs again.
 * A FROM item, so set_config runs once, inside the statement's own transaction.
 */
const ASYNC_COMMIT = "(select set_config('synchronous_commit', 'off', true)) as async_commit";

/**
 * A run shows as `running` once it has lasted this long, or reported progress. A shorter run is
 * written once, when it ends: every statement around a run is a round trip the worker's slot
 * waits for (bench:jobs: 47% of raw graphile-worker with the mark written first, the target is
 * 60%). A poller may see `queued` for this long after a run began; nothing in the service takes
 * `queued` to mean not started (src/preorders/sync/enqueue.ts locks the offer instead).
 */
const RUNNING_MARK_AFTER_MS = 250;

// The writes of one run, built once. $1 job id, $2 attempt, $3 the run's start: what every write
// records, the first one included.
const RUN_FIELDS = `status = case when jobs.status = 'queued' then 'running' else jobs.status end,
  attempts = greatest(jobs.attempts, $2), started_at = coalesce(jobs.started_at, $3)`;
const MARK_RUNNING = `update jobs set ${RUN_FIELDS}, updated_at = now() from ${ASYNC_COMMIT} where id = $1 and status = 'queued'`;
// $4 processed, $5 total.
const RECORD_PROGRESS = `update jobs set ${RUN_FIELDS}, processed = $4, total = coalesce($5, total), updated_at = now()
  where id = $1 and status in ('queued', 'running')`;
// The end of a run, with $4 its status and $5 the errors to append. Named (prepared once per
// connection): planning this update cost more than running it (bench:jobs: 49-53% of raw
// graphile-worker unprepared, 59-76% prepared).
const END_FIELDS = `status = $4, attempts = greatest(jobs.attempts, $2), started_at = coalesce(jobs.started_at, $3),
  errors = jobs.errors || $5::jsonb, updated_at = now()`;
// $6 the result.
const END_FINISHED = {
  name: "job_run_end",
  text: `update jobs set ${END_FIELDS}, result = $6, processed = coalesce(total, processed), finished_at = now()
    from ${ASYNC_COMMIT} where id = $1 and status in ('queued', 'running')`,
};
const END_FAILED = {
  name: "job_run_failed",
  text: `update jobs set ${END_FIELDS}, finished_at = case when $4 = 'failed' then now() end
    from ${ASYNC_COMMIT} where id = $1 and status in ('queued', 'running')`,
};

/** The row a first attempt starts from: what was queued with it, as the insert left it. */
function rowFromSnapshot(id: string, kind: string, snapshot: NonNullable<JobTaskPayload["row"]>): JobRow {
  return {
    id,
    kind,
    shop_id: snapshot.shop_id,
    status: "queued",
    payload: snapshot.payload,
    total: snapshot.total,
    processed: 0,
    result: null,
    errors: [],
    attempts: 0,
    max_attempts: snapshot.max_attempts,
    created_at: new Date(snapshot.created_at),
    started_at: null,
    finished_at: null,
  };
}

/**
 * An application job's task (payload `{ job_id, row? }`): keeps the jobs row's status, attempts,
 * errors and result in step with graphile-worker's own bookkeeping. A throw is recorded and
 * rethrown, so retries go through graphile-worker's backoff; the last attempt marks it failed. A
 * job cancelled meanwhile stays cancelled: every write is conditional on queued or running.
 */
export function defineJobTask(definition: { name: string; run: JobHandler }): TaskDefinition<typeof jobTaskPayload> {
  return defineTask({
    name: definition.name,
    payload: jobTaskPayload,
    async run(task, { job_id: jobId, row: snapshot }) {
      const { pool } = task;
      const attempt = task.attempt;
      const startedAt = new Date();
      const job = attempt === 1 && snapshot ? rowFromSnapshot(jobId, definition.name, snapshot) : await loadRunnable(pool, jobId);
      if (!job) return; // cancelled, finished by an earlier attempt, or pruned: nothing to do
      const log = task.log.child({ jobId, kind: job.kind, attempt });
      let marking: Promise<unknown> | undefined;
      const timer = setTimeout(() => {
        marking = pool.query(MARK_RUNNING, [jobId, attempt, startedAt]).catch((error: unknown) => log.warn({ err: error }, "could not mark the job running"));
      }, RUNNING_MARK_AFTER_MS);
      const settled = async () => {
        clearTimeout(timer);
        await marking;
      };
      const context: JobContext = {
        ...task,
        log,
        job,
        async progress(processed, total) {
          await pool.query(RECORD_PROGRESS, [jobId, attempt, startedAt, processed, total ?? null]);
        },
      };
      try {
        const result = await runOrSkipUninstalled(definition.run, context);
        await settled();
        // A run whose work was all refused ends failed with the reason, never completed.
        // A run with nothing to record ends with graphile-worker's completion: the jobs row is
        // completed by a trigger on its queue job's delete (sql/103), in the same transaction, so
        // the worker's slot waits for no write of its own (bench/results/jobs.md).
        if (result === undefined || result === null) return;
        const refusal = refusalOf(result);
        const errors = refusal ? [{ attempt, message: refusal, at: new Date().toISOString() }] : [];
        await pool.query({ ...END_FINISHED, values: [jobId, attempt, startedAt, refusal ? "failed" : "completed", JSON.stringify(errors), JSON.stringify(result)] });
      } catch (error) {
        await settled();
        // A PermanentJobFailure ends the job now (the task registry uses up its queue attempts).
        const last = attempt >= task.maxAttempts || error instanceof PermanentJobFailure;
        log.warn({ err: error, last }, "job attempt failed");
        await pool.query({ ...END_FAILED, values: [jobId, attempt, startedAt, last ? "failed" : "queued", JSON.stringify([errorEntry(error, attempt)])] });
        throw error;
      }
    },
  });
}

/**
 * The run's result, or UNINSTALLED_SKIP when it asked for the client of a shop the app is
 * uninstalled from: the job completes with that result instead of failing through its retries.
 */
async function runOrSkipUninstalled(run: JobHandler, context: JobContext): Promise<unknown> {
  try {
    return await run(context);
  } catch (error) {
    if (!(error instanceof ShopUninstalled)) throw error;
    context.log.info({ shopId: error.shopId }, "job skipped: the app is uninstalled from the shop's store");
    return UNINSTALLED_SKIP;
  }
}

async function loadRunnable(pool: pg.Pool, jobId: string): Promise<JobRow | undefined> {
  const { rows } = await pool.query<JobRow>("select * from jobs where id = $1 and status in ('queued', 'running')", [jobId]);
  return rows[0];
}

/** A typed job's run: its shop and its payload, parsed by the job's schema. */
export interface JobRunContext<P> extends JobContext {
  shopId: string;
  payload: P;
}

/**
 * A typed application job: its reference (declareJob) and its run. One policy for every job: a
 * row without a shop, or whose payload the job's schema refuses, can never succeed, so the job
 * fails at once with the reason (PermanentJobFailure), without its retries.
 */
export function defineJob<S extends z.ZodType>(definition: JobRef<S> & { run: (ctx: JobRunContext<z.output<S>>) => Promise<unknown> }): TaskDefinition<typeof jobTaskPayload> {
  return defineJobTask({
    name: definition.name,
    run(ctx) {
      const shopId = ctx.job.shop_id;
      if (!shopId) throw new PermanentJobFailure(`${definition.name} job without a shop`);
      const parsed = definition.payload.safeParse(ctx.job.payload);
      if (!parsed.success) throw new PermanentJobFailure(`${definition.name}: payload refused by the job's schema: ${prettifyError(parsed.error)}`);
      return definition.run({ ...ctx, shopId, payload: parsed.data });
    },
  });
}
