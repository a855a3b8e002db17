import type { JobHelpers, Task } from "graphile-worker";
import pg from "pg";
import { z } from "zod";
import type { Config } from "../config.ts";
import type { Log } from "../logger.ts";
import type { JobRow } from "./jobs.ts";

export interface TaskDeps {
  pool: pg.Pool;
  log: Log;
  config: Config;
}

export interface JobContext extends TaskDeps {
  job: JobRow;
  /** 1 for the first run, counting retries. */
  attempt: number;
  signal: AbortSignal | undefined;
  /** Records how far the job has got; visible at its status_url. */
  progress(processed: number, total?: number): Promise<void>;
}

export type JobHandler = (ctx: JobContext) => Promise<unknown>;

const jobPayload = z.object({ job_id: z.uuid() });

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
 * Wraps an application job handler as a graphile-worker task: keeps the jobs row's status,
 * attempts, errors and result in step with graphile-worker's own bookkeeping. A throw is recorded
 * and rethrown, so retries go through graphile-worker's backoff; the last attempt marks it failed.
 */
export function jobTask(deps: TaskDeps, handler: JobHandler): Task {
  return async (rawPayload: unknown, helpers: JobHelpers) => {
    const payload = jobPayload.safeParse(rawPayload);
    if (!payload.success) {
      helpers.logger.error(`Discarding job ${helpers.job.id}: payload is not { job_id }`);
      return;
    }
    const jobId = payload.data.job_id;
    const attempt = helpers.job.attempts;
    const { rows } = await deps.pool.query<JobRow>(
      `update jobs set status = 'running', attempts = $2, started_at = coalesce(started_at, now()), updated_at = now()
       where id = $1 and status in ('queued', 'running')
       returning *`,
      [jobId, attempt],
    );
    const job = rows[0];
    if (!job) return; // cancelled, finished by an earlier attempt, or pruned: nothing to do
    const log = deps.log.child({ jobId, kind: job.kind, attempt });
    const context: JobContext = {
      ...deps,
      log,
      job,
      attempt,
      signal: helpers.abortSignal,
      async progress(processed, total) {
        await deps.pool.query(
          "update jobs set processed = $2, total = coalesce($3, total), updated_at = now() where id = $1",
          [jobId, processed, total ?? null],
        );
      },
    };
    try {
      const result = await handler(context);
      await deps.pool.query(
        `update jobs set status = 'completed', result = $2, processed = coalesce(total, processed),
           finished_at = now(), updated_at = now()
         where id = $1`,
        [jobId, JSON.stringify(result ?? null)],
      );
    } catch (error) {
      const last = attempt >= helpers.job.max_attempts;
      log.warn({ err: error, last }, "job attempt failed");
      await deps.pool.query(
        `update jobs set status = $2, errors = errors || $3::jsonb,
           finished_at = case when $2 = 'failed' then now() end, updated_at = now()
         where id = $1`,
        [jobId, last ? "failed" : "queued", JSON.stringify([errorEntry(error, attempt)])],
      );
      throw error;
    }
  };
}
