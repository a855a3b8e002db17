-- One row per live graphile-worker pool (its id is what graphile-worker writes to locked_by).
-- A pool that stops beating is dead: the worker_reap cron task frees its jobs with
-- graphile_worker.force_unlock_workers instead of waiting out the 4-hour lock timeout.
create table worker_heartbeats (
  worker_id text primary key,
  pid integer not null,
  hostname text not null,
  started_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now()
);
