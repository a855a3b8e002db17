import type pg from "pg";
import { cancelJob, retryJob } from "../core/jobs.ts";
import { completeJobs, rescheduleJobsNow } from "../queue/bulk.ts";
import { recordCancelled } from "./attempts.ts";
import { type JobFilters, listQuery } from "./data.ts";

/**
 * The console's bulk actions over the jobs a filter lists (decision 0251): retry every failed one,
 * or cancel every queued, scheduled or failed one. An app job goes through its own retry or cancel
 * (src/core/jobs.ts); a queue job through graphile-worker's public helpers (src/queue/bulk.ts):
 * rescheduled with fresh attempts, or removed (complete_jobs) and kept in the history as
 * cancelled. A queue row of an app job is the app job's (never acted on by itself), a running one
 * is left alone, and a finished job in the history has nothing left to act on.
 */

export const BULK_ACTIONS = ["retry", "cancel"] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
/** The most jobs one bulk action touches; the confirmation says when there are more. */
export const BULK_MAX = 5000;

const RETRYABLE = new Set(["failed"]);
const CANCELLABLE = new Set(["queued", "scheduled", "failed"]);

interface Target {
  source: "app" | "queue";
  id: string;
  status: string;
  app_job: string | null;
  locked_by: string | null;
  in_queue: boolean;
}

/** The jobs `action` would touch under `filters`, newest first, at most BULK_MAX (and whether there were more). */
export async function bulkTargets(db: pg.Pool, action: BulkAction, filters: JobFilters): Promise<{ targets: Target[]; more: boolean }> {
  const wanted = action === "retry" ? RETRYABLE : CANCELLABLE;
  // The history's rows are listed as queue rows too: `in_queue` tells the live ones.
  const query = listQuery({ ...filters, limit: 100_000, offset: 0 }, "source, id, status, app_job, locked_by, (source = 'app' or run_at is not null) as in_queue");
  const { rows } = await db.query<Target>(query.text, query.values);
  const targets = rows.filter((r) => wanted.has(r.status) && r.in_queue && (r.source === "app" || (r.app_job === null && r.locked_by === null)));
  return { targets: targets.slice(0, BULK_MAX), more: targets.length > BULK_MAX };
}

export interface BulkOutcome {
  done: number;
  skipped: number;
}

/** Runs `action` on the targets: how many it changed, and how many had changed meanwhile. */
export async function runBulk(db: pg.Pool, action: BulkAction, targets: readonly Target[]): Promise<BulkOutcome> {
  const app = targets.filter((t) => t.source === "app").map((t) => t.id);
  const queue = targets.filter((t) => t.source === "queue").map((t) => t.id);
  let done = 0;
  if (action === "retry") {
    for (const id of app) if (await retryJob(db, id)) done++;
    done += (await rescheduleJobsNow(db, queue)).length;
  } else {
    for (const id of app) if (await cancelJob(db, id, "Cancelled by an operator (bulk)")) done++;
    const removed = await completeJobs(db, queue);
    await recordCancelled(db, removed, "Cancelled by an operator (bulk)");
    done += removed.length;
  }
  return { done, skipped: targets.length - done };
}
