-- Every attempt of every queue job, kept beside graphile-worker's single last_error (issue 32,
-- decision 0251). Written by the worker's recorder (src/ops/attempts.ts) from graphile-worker's
-- public events (job:start, job:success, job:error, job:failed), never from its tables: a row is
-- one run of a job on a worker, with its error and time. graphile-worker deletes a job once it
-- completes and resets its attempts on a retry; these rows stay, so the console's job page lists
-- every attempt (those before a retry too) and its finished-jobs history outlives the queue row.
-- Kept for JOB_RETENTION_DAYS, pruned by the maintenance_prune crontab entry.
create table job_attempts (
  id uuid primary key,
  -- graphile-worker's job id (graphile_worker.jobs.id: never reused)
  queue_job_id bigint not null,
  -- the application job the run belongs to (payload job_id), if any
  app_job_id uuid,
  task text not null,
  job_key text,
  -- graphile-worker's attempt number when the run started (1 after a retry reset it)
  attempt integer not null,
  max_attempts integer not null,
  worker_id text,
  started_at timestamptz,
  finished_at timestamptz,
  -- running until it ends; retrying: failed with attempts left; failed: the last attempt failed
  outcome text not null default 'running' check (outcome in ('running', 'completed', 'retrying', 'failed')),
  error text,
  recorded_at timestamptz not null default now()
);

create index job_attempts_queue_job on job_attempts (queue_job_id, started_at);
create index job_attempts_app_job on job_attempts (app_job_id, started_at) where app_job_id is not null;
-- the graph and the throughput: finished runs by time (and task)
create index job_attempts_finished on job_attempts (finished_at desc, task) where finished_at is not null;

-- The finished-jobs history: one row per queue job that ended (completed, failed for good, or
-- removed by an operator: cancelled), written with its last attempt by the same recorder, so a
-- job graphile-worker deleted is still listed, searched and opened in the console. A failed job
-- retried and finished again is one row, its latest end. Kept for JOB_RETENTION_DAYS.
create table job_history (
  queue_job_id bigint primary key,
  app_job_id uuid,
  task text not null,
  job_key text,
  status text not null check (status in ('completed', 'failed', 'cancelled')),
  attempts integer not null,
  max_attempts integer not null,
  worker_id text,
  -- the job's payload; a large one is kept as its short scalar fields only (src/ops/attempts.ts)
  payload jsonb,
  created_at timestamptz not null,
  finished_at timestamptz not null,
  last_error text
);

create index job_history_finished on job_history (finished_at desc);
create index job_history_task_finished on job_history (task, finished_at desc);
