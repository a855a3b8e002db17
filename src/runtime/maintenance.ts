import type { Db } from "../core/db.ts";

export async function pruneFinishedJobs(db: Db, retentionDays: number): Promise<number> {
  const result = await db.query(
    `delete from jobs where finished_at is not null and finished_at < now() - make_interval(days => $1)`,
    [retentionDays],
  );
  return result.rowCount ?? 0;
}

/** Keeps the current and previous window; older ones can never be charged again. */
export async function pruneRateLimitWindows(db: Db, windowSeconds: number): Promise<number> {
  const result = await db.query(
    `delete from rate_limit_windows where window_start < floor(extract(epoch from now()) / $1)::bigint - 1`,
    [windowSeconds],
  );
  return result.rowCount ?? 0;
}
