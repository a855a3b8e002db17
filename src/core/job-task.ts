import pg from "pg";
import { type JobRow, jobTaskPayload, refusalOf } from "./jobs.ts";
import { type TaskContext, type TaskDefinition, defineTask } from "./tasks.ts";

export interface JobContext extends TaskContext {
  job: JobRow;
  /** Records how far the job has got; visible at its status_url. */
  progress(processed: number, total?: number): Promise<void>;
}

export type JobHandler = (ctx: JobContext) => Promise<unknown>;

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
 * each, twice per job: bench:jobs measured the job layer at ~30% of raw graphile-worker with
 * them). Visibility is unchanged; only durability is deferred, and graphile-worker's own
 * complete_job/fail_job, which commits synchronously right after, flushes the WAL past them. A
 * crash before that loses at most the row's latest status while the job itself runs again.
 * A FROM item, so set_config runs once, inside the statement's own transaction.
 */
const ASYNC_COMMIT = "(select set_config('synchronous_commit', 'off', true)) as async_commit";

/**
 * An application job's task (payload `{ job_id }`): keeps the jobs row's status, attempts, errors
 * and result in step with graphile-worker's own bookkeeping. A throw is recorded and rethrown, so
 * retries go through graphile-worker's backoff; the last attempt marks it failed.
 */
export function defineJobTask(definition: { name: string; run: JobHandler }): TaskDefinition<typeof jobTaskPayload> {
  return defineTask({
    name: definition.name,
    payload: jobTaskPayload,
    async run(task, { job_id: jobId }) {
      const { pool } = task;
      const attempt = task.attempt;
      const { rows } = await pool.query<JobRow>(
        `update jobs set status = 'running', attempts = $2, started_at = coalesce(started_at, now()), updated_at = now()
         from ${ASYNC_COMMIT}
         where id = $1 and status in ('queued', 'running')
         returning jobs.*`,
        [jobId, attempt],
      );
      const job = rows[0];
      if (!job) return; // cancelled, finished by an earlier attempt, or pruned: nothing to do
      const log = task.log.child({ jobId, kind: job.kind, attempt });
      const context: JobContext = {
        ...task,
        log,
        job,
        async progress(processed, total) {
          await pool.query("update jobs set processed = $2, total = coalesce($3, total), updated_at = now() where id = $1", [
            jobId,
            processed,
            total ?? null,
          ]);
        },
      };
      try {
        const result = await definition.run(context);
        // A run whose work was all refused ends failed with the reason, never completed; a job
        // cancelled meanwhile stays cancelled.
        const refusal = refusalOf(result);
        await pool.query(
          `update jobs set status = $3, result = $2, processed = coalesce(total, processed),
             errors = case when $4::jsonb is null then errors else errors || $4::jsonb end,
             finished_at = now(), updated_at = now()
           from ${ASYNC_COMMIT}
           where id = $1 and status = 'running'`,
          [
            jobId,
            JSON.stringify(result ?? null),
            refusal ? "failed" : "completed",
            refusal ? JSON.stringify([{ attempt, message: refusal, at: new Date().toISOString() }]) : null,
          ],
        );
      } catch (error) {
        const last = attempt >= task.maxAttempts;
        log.warn({ err: error, last }, "job attempt failed");
        await pool.query(
          `update jobs set status = $2, errors = errors || $3::jsonb,
             finished_at = case when $2 = 'failed' then now() end, updated_at = now()
           from ${ASYNC_COMMIT}
           where id = $1`,
          [jobId, last ? "failed" : "queued", JSON.stringify([errorEntry(error, attempt)])],
        );
        throw error;
      }
    },
  });
}
