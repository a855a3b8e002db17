import type { Db } from "../../src/core/db.ts";
import { runNowByKey } from "../../src/queue/admin.ts";

/** Runs the waiting queue job under `key` now instead of at its backoff or schedule (no worker-held job moves). */
export async function runNow(db: Db, key: string): Promise<number> {
  return runNowByKey(db, key);
}

/** How many queue jobs an application job (jobs table) has in graphile-worker: 1 while queued or retrying, else 0. */
export async function queueJobCount(db: Db, jobId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>("select count(*)::int as n from graphile_worker.jobs where key = $1", [`job:${jobId}`]);
  return rows[0]?.n ?? 0;
}
