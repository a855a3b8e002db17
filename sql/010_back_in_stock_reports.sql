-- Files produced by export jobs (CSV reports of any area), kept in PostgreSQL so that any web
-- process can serve them (GET /exports/{id}). An export goes with its job: the jobs retention
-- prune removes both.
create table exports (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null references shops on delete cascade,
  job_id uuid references jobs on delete cascade,
  filename text not null,
  content_type text not null,
  bytes bytea not null,
  created_at timestamptz not null default now()
);

-- A retried export job replaces its file instead of adding a second one.
create unique index exports_job_filename on exports (job_id, filename) where job_id is not null;
create index exports_shop_created on exports (shop_id, created_at desc);

-- Signup lists filtered by variant or product, newest first (keyset paging on created_at, id).
create index bis_signups_variant_created on bis_signups (shop_id, variant_id, created_at desc, id desc);
create index bis_signups_product_created on bis_signups (shop_id, product_id, created_at desc, id desc);
-- Reports bucket notified and converted signups by when that happened.
create index bis_signups_notified_at on bis_signups (shop_id, notified_at) where notified_at is not null;
create index bis_signups_converted_at on bis_signups (shop_id, converted_at) where converted_at is not null;

-- The notifications log, newest first (keyset paging on created_at, id), and by signup or variant.
create index bis_notifications_shop_created_id on bis_notifications (shop_id, created_at desc, id desc);
create index bis_notifications_variant on bis_notifications (shop_id, variant_id, created_at desc, id desc);
-- Also serves the foreign key's `on delete set null` when signups are deleted in bulk.
create index bis_notifications_signup on bis_notifications (signup_id) where signup_id is not null;
