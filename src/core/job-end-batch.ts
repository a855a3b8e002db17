import type pg from "pg";

/** One finished run's end, as END_FINISHED writes it. */
export interface FinishedRun {
  jobId: string;
  attempt: number;
  startedAt: Date;
  status: "completed" | "failed";
  /** JSON text of the errors to append. */
  errors: string;
  /** JSON text of the result. */
  result: string;
}

/**
 * The ends of the runs that finish together, written by one statement (bench:jobs: one update per
 * job held the job layer at 58-76% of raw graphile-worker; the target is 80%). A run waits for the
 * statement that writes its end before graphile-worker marks its queue job complete, so a crash
 * still leaves either both or the queue job to run again. The batch is what finished while the
 * previous statement ran, plus the runs of the same tick: no run waits on a timer.
 * Async commit, as the single-row writes (job-task.ts: ASYNC_COMMIT).
 */
const END_FINISHED_BATCH = {
  name: "job_run_end_batch",
  text: `update jobs set status = v.status,
      attempts = greatest(jobs.attempts, v.attempt), started_at = coalesce(jobs.started_at, v.started_at),
      errors = jobs.errors || v.errors, updated_at = now(),
      result = v.result, processed = coalesce(jobs.total, jobs.processed), finished_at = now()
    from unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::text[], $5::jsonb[], $6::jsonb[]) as v(id, attempt, started_at, status, errors, result),
      (select set_config('synchronous_commit', 'off', true)) as async_commit
    where jobs.id = v.id and jobs.status in ('queued', 'running')`,
};

interface Waiting extends FinishedRun {
  done: () => void;
  fail: (error: unknown) => void;
}

class EndBatcher {
  private readonly pool: pg.Pool;
  private waiting: Waiting[] = [];
  private writing = false;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  finish(run: FinishedRun): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ...run, done: resolve, fail: reject });
      if (!this.writing) {
        this.writing = true;
        // The runs finishing in this tick join the first statement.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      try {
        await this.write(batch);
        for (const run of batch) run.done();
      } catch (error) {
        if (batch.length === 1) {
          batch[0]?.fail(error);
          continue;
        }
        // One row the statement refuses (a result jsonb cannot hold) must not fail the runs that
        // finished beside it: each is written on its own, and only the bad one fails.
        await Promise.all(batch.map((run) => this.write([run]).then(run.done, run.fail)));
      }
    }
    this.writing = false;
  }

  private async write(runs: readonly FinishedRun[]): Promise<void> {
    await this.pool.query({
      ...END_FINISHED_BATCH,
      values: [
        runs.map((r) => r.jobId),
        runs.map((r) => r.attempt),
        runs.map((r) => r.startedAt),
        runs.map((r) => r.status),
        runs.map((r) => r.errors),
        runs.map((r) => r.result),
      ],
    });
  }
}

const batchers = new WeakMap<pg.Pool, EndBatcher>();

/** Writes a finished run's end with the others finishing now; resolves once it is written. */
export function writeFinishedRun(pool: pg.Pool, run: FinishedRun): Promise<void> {
  let batcher = batchers.get(pool);
  if (!batcher) {
    batcher = new EndBatcher(pool);
    batchers.set(pool, batcher);
  }
  return batcher.finish(run);
}
