-- The application's view of asynchronous work. graphile-worker owns claiming and retries;
-- this table is what clients poll (GET /jobs/{id}) and operators list.
create table jobs (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid references shops on delete cascade,
  kind text not null,
  status text not null default 'queued'
    check (status in ('queued', 'running', 'completed', 'failed', 'cancelled')),
  payload jsonb not null default '{}',
  total integer,
  processed integer not null default 0,
  result jsonb,
  errors jsonb not null default '[]',
  attempts integer not null default 0,
  max_attempts integer not null default 5,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz not null default now()
);

create index jobs_shop_created on jobs (shop_id, created_at desc);
create index jobs_status_kind on jobs (status, kind, created_at desc);
create index jobs_finished on jobs (finished_at) where finished_at is not null;
