-- A job's run is written once, when it ends, by a plain insert (src/ops/attempts.ts, decision
-- 0251): the recorder wrote a row at each start and upserted it at the end, and a history row for
-- every job, which took the application jobs' drain from 83.8% to 68.1% of raw graphile-worker's
-- (bench:jobs). Without the upsert the id needs no index; a run under way is graphile-worker's
-- locked queue row, not a row here. Rows written as running before this stay as they are.
alter table job_attempts drop constraint job_attempts_pkey;
