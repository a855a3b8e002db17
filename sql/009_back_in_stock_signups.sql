-- Back-in-stock settings: one deep-partial document per shop, validated by the application's
-- schema (src/actions/back_in_stock/settings); absent keys take the defaults there.
create table bis_settings (
  shop_id uuid primary key references shops on delete cascade,
  settings jsonb not null default '{}',
  updated_at timestamptz not null default now()
);

-- A customer waiting for a variant. The same shop, variant, channel and contact is the same signup.
create table bis_signups (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null references shops on delete cascade,
  variant_id text not null,
  product_id text,
  channel text not null check (channel in ('email', 'sms')),
  -- e-mail lower-cased, phone in E.164
  contact text not null,
  locale text not null default 'en',
  consent boolean not null default false,
  customer_id text,
  first_name text,
  status text not null default 'waiting'
    check (status in ('waiting', 'notified', 'converted', 'unsubscribed')),
  created_at timestamptz not null default now(),
  notified_at timestamptz,
  converted_at timestamptz,
  converted_order_id text,
  unsubscribed_at timestamptz,
  updated_at timestamptz not null default now(),
  unique (shop_id, variant_id, channel, contact)
);

-- The alert run's queue: the oldest waiting signups of a variant first.
create index bis_signups_waiting on bis_signups (shop_id, variant_id, created_at, id) where status = 'waiting';
create index bis_signups_shop_created on bis_signups (shop_id, created_at desc);
create index bis_signups_contact on bis_signups (shop_id, channel, contact);

-- One row per signup and stage, ever: written before a message is sent, marked after. Its id
-- is the message's deterministic id, so a retry after a crash is recognisable downstream.
create table bis_ledger (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null references shops on delete cascade,
  signup_id uuid not null references bis_signups on delete cascade,
  stage text not null check (stage in ('initial', 'reminder', 'signup_thank_you')),
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'blocked')),
  attempts integer not null default 0,
  last_error text,
  provider_message_id text,
  created_at timestamptz not null default now(),
  sent_at timestamptz,
  unique (signup_id, stage)
);

create index bis_ledger_pending on bis_ledger (shop_id, created_at) where status = 'pending';

-- Every send or refusal, for GET /back_in_stock/notifications and the reports.
create table bis_notifications (
  id bigint generated always as identity primary key,
  shop_id uuid not null references shops on delete cascade,
  signup_id uuid references bis_signups on delete set null,
  ledger_id uuid references bis_ledger on delete set null,
  variant_id text not null,
  stage text not null check (stage in ('initial', 'reminder', 'signup_thank_you')),
  channel text not null check (channel in ('email', 'sms')),
  status text not null check (status in ('sent', 'failed', 'blocked')),
  blocked_reason text,
  error text,
  provider_message_id text,
  -- text messages: the provider's delivery status from its status callback
  delivery_status text,
  created_at timestamptz not null default now()
);

create index bis_notifications_shop_created on bis_notifications (shop_id, created_at desc);
create index bis_notifications_provider on bis_notifications (provider_message_id) where provider_message_id is not null;
