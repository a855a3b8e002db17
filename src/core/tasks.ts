import type { CronItem } from "graphile-worker";
import type pg from "pg";
import { z } from "zod";
import type { Channels } from "../channels/index.ts";
import type { Config } from "../config.ts";
import type { Log } from "../logger.ts";
import type { PlatformRuntime } from "../platform/runtime.ts";
import type { Db } from "./db.ts";
import { type AddJobSpec, addJob } from "../queue/enqueue.ts";

/** What every task may use: built once per worker process (src/runtime/worker.ts). */
export interface TaskDeps {
  pool: pg.Pool;
  log: Log;
  config: Config;
  platform: PlatformRuntime;
  /** The process's senders (one SMTP pool). */
  channels: Channels;
  /**
   * Seconds an offer sync that finds a resolution of the offer's variants under way waits before
   * it runs anyway (src/preorders/sync/run.ts); absent: its default, 60. Tests set it.
   */
  offerSyncDeferSeconds?: number;
}

/** One run of a task: the deps and what graphile-worker says of this attempt. */
export interface TaskContext extends TaskDeps {
  /** graphile-worker's id of the job being run (its logs and tables use it). */
  workerJobId: string;
  /** 1 for the first run, counting retries. */
  attempt: number;
  maxAttempts: number;
  /** Fires when the worker shuts down and the job should stop early. */
  signal: AbortSignal | undefined;
}

/**
 * What enqueuing needs of a task: its graphile-worker identifier and its payload's schema. Code in
 * src/ that queues a task holds this, not the run: a run imports the pipeline, which often queues
 * the task itself, and the reference must not pull that cycle in.
 */
export interface TaskRef<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly payload: S;
}

/**
 * When graphile-worker's crontab runs a task: its own CronItem without the task (the definition
 * names it). Schedules are claimed through PostgreSQL, so each fires at most once per tick however
 * many workers run; the identifier (default: the task's name) is the key of its last run in
 * graphile-worker's known-crontabs table, so it stays as it is once deployed.
 */
export type TaskSchedule = Omit<CronItem, "task" | "pattern">;

export interface TaskDefinition<S extends z.ZodType = z.ZodType> extends TaskRef<S> {
  /** The task's crontab entries, built by graphile-worker's parseCronItems (task-registry.ts). */
  readonly cron?: readonly TaskSchedule[];
  /**
   * A throw is retried with graphile-worker's backoff until the job's max attempts; a
   * PermanentJobFailure ends the job failed at once.
   */
  run(ctx: TaskContext, payload: z.output<S>): Promise<unknown>;
}

export type AnyTaskDefinition = TaskDefinition;

/**
 * A failure no retry can mend (a payload that can never be applied): thrown by a run, the job ends
 * failed at once with this message as its last error, instead of going through its retries
 * (task-registry.ts). It stays in graphile-worker's table, where operators see failed jobs.
 */
export class PermanentJobFailure extends Error {
  override name = "PermanentJobFailure";
}

/** A task's identifier and payload, for those that queue it (the run is defined in tasks/). */
export function declareTask<S extends z.ZodType>(ref: TaskRef<S>): TaskRef<S> {
  return Object.freeze({ name: ref.name, payload: ref.payload });
}

/** A task the worker runs: registered in tasks/index.ts. */
export function defineTask<S extends z.ZodType>(definition: TaskDefinition<S>): TaskDefinition<S> {
  return definition;
}

interface EnqueueOptions {
  jobKey?: string;
  /** graphile-worker's default (25) when unset. */
  maxAttempts?: number;
  runAt?: Date;
  /** Run this long after the database's now() (the transaction's start), when `runAt` is unset. */
  delaySeconds?: number;
  priority?: number;
  queueName?: string;
  jobKeyMode?: "replace" | "preserve_run_at" | "unsafe_dedupe";
}


/** add_job of the task, checked against its schema; each call of the answer queues once: the job id, or null when a worker claimed the keyed job in the middle of it (see enqueue). */
function prepareAddJob<S extends z.ZodType>(db: Db, task: TaskRef<S>, payload: z.input<S>, options: EnqueueOptions): () => Promise<string | null> {
  const parsed = task.payload.safeParse(payload);
  if (!parsed.success) throw new Error(`enqueue ${task.name}: payload refused by the task's schema: ${z.prettifyError(parsed.error)}`);
  const spec: AddJobSpec = {
    identifier: task.name,
    payload: JSON.stringify(parsed.data ?? {}),
    queueName: options.queueName ?? null,
    runAt: options.runAt ?? null,
    delaySeconds: options.delaySeconds ?? null,
    maxAttempts: options.maxAttempts ?? null,
    jobKey: options.jobKey ?? null,
    priority: options.priority ?? null,
    jobKeyMode: options.jobKeyMode ?? null,
  };
  return () => addJob(db, spec);
}

/**
 * Queues the task with graphile-worker's `add_job` on `db`: on the write's transaction client, a
 * rollback takes the job away and a commit keeps it. A payload its schema refuses is a
 * programming error and throws before anything is written. Answers graphile-worker's job id.
 */
export async function enqueue<S extends z.ZodType>(db: Db, task: TaskRef<S>, payload: z.input<S>, options: EnqueueOptions = {}): Promise<string> {
  const add = prepareAddJob(db, task, payload, options);
  let id = await add();
  // A keyed job claimed by a worker between add_job's two statements (it clears the key of a
  // locked job, then inserts ... on conflict do update where not locked) is neither replaced nor
  // joined by a new one: add_job answers no job (graphile/worker#580). Asked again, it sees the
  // claim, clears that job's key and queues a new one, as for any job already running. Lost, the
  // change behind it had no job: an offer's sync waited out a 60 s deferral for one.
  if (id === null && options.jobKey !== undefined) id = await add();
  if (id === null) throw new Error(`add_job queued no job for ${task.name}`);
  return id;
}

/**
 * Queues a keyed job, after the caller's commit, for a task whose job reads what was committed
 * when it starts (a restock burst): when a worker claims the key's job in the middle of add_job
 * (graphile/worker#580), that job started after the caller's commit and serves it as a new one
 * would, so the answer is null, not a second job (a wave of webhooks claims that key's jobs as
 * fast as it queues them, and asking again lost the race again). On the pool, never in a
 * transaction: the null answer holds only once the caller's writes are committed. Answers the job
 * id, or null.
 */
export async function enqueueAfterCommit<S extends z.ZodType>(
  db: pg.Pool,
  task: TaskRef<S>,
  payload: z.input<S>,
  options: Omit<EnqueueOptions, "jobKeyMode"> & { jobKey: string },
): Promise<string | null> {
  return prepareAddJob(db, task, payload, options)();
}
