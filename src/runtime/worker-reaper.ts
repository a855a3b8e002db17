import type pg from "pg";
import { type Db, withTransaction } from "../core/db.ts";
import { forceUnlockWorkers, permanentlyFailJobs } from "../queue/admin.ts";
import { QUEUE_RELATIONS } from "../queue/relations.ts";

/** Any constant unique to this application: one reaper at a time. */
const REAPER_LOCK_ID = 7_215_300_002;

interface ReapResult {
  /** The graphile-worker pool ids whose locks were freed. */
  workerIds: string[];
  /** How many jobs they had locked. */
  jobs: number;
}

/**
 * Frees the jobs of dead workers at once, instead of after graphile-worker's 4-hour lock timeout.
 * Dead: a heartbeat older than `deadAfterSeconds`, or no heartbeat at all behind a lock older
 * than that (a worker that died before its first beat, or a process without heartbeats).
 * graphile-worker's force_unlock_workers makes their jobs available again; the attempt the dead
 * worker had started stays counted. The app's jobs rows follow: queued for the next attempt with
 * the lost one in `errors`, or failed when it was the last (graphile-worker never runs it again).
 */
export async function reapDeadWorkers(pool: pg.Pool, deadAfterSeconds: number): Promise<ReapResult> {
  return withTransaction(pool, async (client) => {
    await client.query("select pg_advisory_xact_lock($1)", [REAPER_LOCK_ID]);
    const { rows } = await client.query<{ worker_id: string }>(
      `with silent as (
         delete from worker_heartbeats where last_seen_at < now() - make_interval(secs => $1)
         returning worker_id
       )
       select worker_id from silent
       union
       select distinct j.locked_by from ${QUEUE_RELATIONS.jobs} j
       where j.locked_at < now() - make_interval(secs => $1)
         and not exists (select 1 from worker_heartbeats h where h.worker_id = j.locked_by)`,
      [deadAfterSeconds],
    );
    const workerIds = rows.map((r) => r.worker_id);
    if (workerIds.length === 0) return { workerIds, jobs: 0 };
    const jobs = await releaseWorkers(client, workerIds, `The worker running this attempt stopped responding (no heartbeat for ${deadAfterSeconds} s)`);
    return { workerIds, jobs };
  });
}

/**
 * Makes the jobs locked by the given graphile-worker pools available again, which must be gone
 * (dead, or ended: a pool of this process that a database outage stopped, worker-supervisor.ts),
 * in the caller's transaction; `message` says why in the lost attempt's errors. Answers how many.
 */
export async function releaseWorkers(client: Db, workerIds: readonly string[], message: string): Promise<number> {
  const { rows: lost } = await client.query<{ id: string; exhausted: boolean }>(
    `select id, attempts >= max_attempts as exhausted from ${QUEUE_RELATIONS.jobs} where locked_by = any($1::text[])`,
    [workerIds],
  );
  await client.query(
    `update jobs a
     set status = case when g.attempts >= g.max_attempts then 'failed' else 'queued' end,
         errors = a.errors || jsonb_build_array(jsonb_build_object('attempt', g.attempts, 'message', $2::text, 'at', $3::text)),
         finished_at = case when g.attempts >= g.max_attempts then now() end,
         updated_at = now()
     from ${QUEUE_RELATIONS.jobs} g
     where g.locked_by = any($1::text[]) and g.key = 'job:' || a.id and a.status in ('queued', 'running')`,
    [workerIds, message, new Date().toISOString()],
  );
  await forceUnlockWorkers(client, workerIds);
  const exhausted = lost.filter((j) => j.exhausted).map((j) => j.id);
  if (exhausted.length > 0) {
    // Already out of attempts; this records why, for whoever reads graphile-worker's table.
    await permanentlyFailJobs(client, exhausted, message);
  }
  return lost.length;
}
