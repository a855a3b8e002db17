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

/**
 * Drops the key-less clients' windows (client_rate_limit_windows, decision 0215) that ended a whole
 * window ago or more: each row carries its own length, so the limits' lengths need not be known.
 */
export async function pruneClientRateLimitWindows(db: Db): Promise<number> {
  const result = await db.query(
    `delete from client_rate_limit_windows where window_start + 2 * window_seconds <= floor(extract(epoch from now()))::bigint`,
  );
  return result.rowCount ?? 0;
}
