-- An application job's successful end is written by graphile-worker's own completion: when a
-- worker deletes the queue job it ran (key `job:<jobs.id>`), the jobs row becomes completed in the
-- same statement and transaction, with no round trip of the worker's. A run that ends with a
-- result, a refusal or a failure still writes its end itself first (src/core/job-task.ts), and this
-- then finds the row no longer queued or running.
--
-- Only a worker's completion counts: graphile-worker deletes a job it ran while the job is locked
-- by that worker; remove_job and complete_jobs (the admin functions) delete only unlocked jobs, or
-- ones whose lock is older than 4 hours, which a run never holds.
create function app_job_runs_completed() returns trigger
language plpgsql
-- graphile-worker's connections may have another search_path: the app's tables as migrated.
set search_path from current
as $$
begin
  update jobs set
    status = 'completed',
    attempts = greatest(jobs.attempts, done.attempts),
    started_at = coalesce(jobs.started_at, done.locked_at),
    processed = coalesce(jobs.total, jobs.processed),
    finished_at = now(),
    updated_at = now()
  from app_job_runs_done as done
  where jobs.id = (case when done.key ~ '^job:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then substr(done.key, 5)::uuid end)
    and done.locked_by is not null
    and done.locked_at >= now() - interval '4 hours'
    and jobs.status in ('queued', 'running');
  return null;
exception when others then
  -- Never fail graphile-worker's completion (it would stop the worker); the row stays as it was
  -- and the warning is in the database log.
  raise warning 'app_job_runs_completed: %', sqlerrm;
  return null;
end
$$;

create trigger app_job_runs_completed
  after delete on graphile_worker._private_jobs
  referencing old table as app_job_runs_done
  for each statement execute function app_job_runs_completed();
