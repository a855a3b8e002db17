-- Preorders, shop-wide: settings and developer settings (each stored deep-partial: only what the
-- merchant set, read over the defaults in src/preorders/settings), the developer webhook's signing
-- secret (sealed with the service's secrets key, never readable), notification templates and their
-- stage switches, the notifications ledger, and developer webhook events.
create table preorder_shop_settings (
  shop_id uuid primary key references shops on delete cascade,
  settings jsonb not null default '{}',
  developer_settings jsonb not null default '{}',
  webhook_secret bytea,
  updated_at timestamptz not null default now()
);

-- What ingestion learns beyond the platform's facts:
--   phone, locale: where and in which language the customer is told (notifications);
--   app_tags: the tags this service applies to the order (offers' checkout.order_tags and the shop's
--     orders.tags), kept so a later webhook that predates the platform push does not drop them;
--   balance_due_at: when the remaining balance is due (the offer's payments.remaining_balance.due);
--   auto_collect: how the balance is collected automatically (due_date, on_fulfillment), fixed when
--     the order is first seen with a balance;
--   auto_collect_result, auto_collect_ran_at: what the last auto-collect run decided (requested, or
--     why it did not charge), for operators and support.
alter table preorder_orders
  add column phone text,
  add column locale text,
  add column app_tags text[] not null default '{}',
  add column balance_due_at timestamptz,
  add column auto_collect text check (auto_collect in ('due_date', 'on_fulfillment')),
  add column auto_collect_result text,
  add column auto_collect_ran_at timestamptz;

-- A merchant's text for one stage, locale and channel (the shipped defaults are in code).
create table preorder_templates (
  shop_id uuid not null references shops on delete cascade,
  stage text not null check (stage in ('confirmation', 'shipping_date_change', 'balance_due')),
  locale text not null,
  channel text not null check (channel in ('email', 'sms')),
  subject text,
  body text not null,
  updated_at timestamptz not null default now(),
  primary key (shop_id, stage, locale, channel)
);

-- A stage's on/off switch, for every locale (absent: the shipped default, on).
create table preorder_stage_settings (
  shop_id uuid not null references shops on delete cascade,
  stage text not null check (stage in ('confirmation', 'shipping_date_change', 'balance_due')),
  enabled boolean not null,
  updated_at timestamptz not null default now(),
  primary key (shop_id, stage)
);

-- THE LEDGER of notifications to preorder customers: one row per order, stage, event and channel,
-- ever. A row is claimed (pending) in the transaction that decides the message, sent by a job that
-- holds its row lock, and marked sent, failed or blocked. Its id is the message's id, so a retry
-- after a crash sends the same message id. event_key tells repeated events of a stage apart:
-- '' for confirmation, the change's id for shipping_date_change, the due instant for balance_due.
create table preorder_notifications (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null references shops on delete cascade,
  order_id uuid not null references preorder_orders on delete cascade,
  offer_id uuid references preorder_offers on delete set null,
  stage text not null check (stage in ('confirmation', 'shipping_date_change', 'balance_due')),
  event_key text not null default '',
  channel text not null check (channel in ('email', 'sms')),
  recipient text,
  locale text not null,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'blocked')),
  blocked_reason text,
  attempts integer not null default 0,
  last_error text,
  provider_message_id text,
  -- what the message is about (delivery before and after, the balance and its due date)
  context jsonb not null default '{}',
  sent_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (order_id, stage, event_key, channel)
);

create index preorder_notifications_shop_created on preorder_notifications (shop_id, created_at desc, id desc);
create index preorder_notifications_shop_order on preorder_notifications (shop_id, order_id);

-- Order-lifecycle events for the merchant's developer webhook: one row per event, delivered (signed
-- with HMAC-SHA256) by a job with retries; its id is the delivery's idempotency key.
create table preorder_webhook_events (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null references shops on delete cascade,
  topic text not null,
  order_id uuid references preorder_orders on delete set null,
  payload jsonb not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed', 'skipped')),
  attempts integer not null default 0,
  last_status integer,
  last_error text,
  created_at timestamptz not null default now(),
  delivered_at timestamptz
);

create index preorder_webhook_events_shop_created on preorder_webhook_events (shop_id, created_at desc, id desc);
