-- Back-in-stock alert runs: one per restock of a variant, at most one running per variant. A run
-- sends in batches, one per interval (each batch is its own graphile-worker job under the key
-- `bis_alert_run:<shop>:<variant>`); the batch under way is recorded here, so a batch resumed after
-- a crash continues its quota instead of starting a new one.
create table bis_alert_runs (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null references shops on delete cascade,
  variant_id text not null,
  status text not null default 'running' check (status in ('running', 'completed', 'stopped')),
  -- what started it: an inventory webhook, the periodic inventory check, the recovery sweep
  trigger text not null,
  -- completed: no eligible signup left; stopped: out_of_stock, stage_disabled
  stop_reason text,
  batches integer not null default 0,
  notified integer not null default 0,
  last_available integer,
  batch_started_at timestamptz,
  batch_quota integer,
  batch_claimed integer not null default 0,
  -- the earliest time the next batch may start: one batch per interval
  next_batch_at timestamptz,
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  updated_at timestamptz not null default now()
);

create unique index bis_alert_runs_one_running on bis_alert_runs (shop_id, variant_id) where status = 'running';
create index bis_alert_runs_shop_started on bis_alert_runs (shop_id, started_at desc);

-- Signups whose `initial` alert was sent and whose reminder is not decided yet: the reminder scan
-- reads only this (by shop and send time), so its cost follows what is due, not the whole table.
-- A row leaves when the reminder is claimed, refused or no longer applies (converted, unsubscribed).
create table bis_reminder_queue (
  signup_id uuid primary key references bis_signups on delete cascade,
  shop_id uuid not null references shops on delete cascade,
  initial_sent_at timestamptz not null
);

create index bis_reminder_queue_due on bis_reminder_queue (shop_id, initial_sent_at);

-- The recovery sweep looks for claimed messages that were never marked (a crash between claim
-- and mark): pending ledger rows by age, across shops.
create index bis_ledger_pending_age on bis_ledger (created_at) where status = 'pending';
