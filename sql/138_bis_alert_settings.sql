-- Merchant alerts and scheduled report e-mails of back in stock (GET/PATCH
-- /back_in_stock/settings/alerts, decision 0247).
--
-- The settings: one more deep-partial document of the shop's bis_settings row, beside `settings`
-- (read merged over the defaults in code: src/back_in_stock/settings/alerts.ts).
alter table bis_settings add column alerts jsonb not null default '{}';

-- THE MERCHANT LEDGER: one row per message to one of the merchant's recipients, ever. The key
-- (shop, kind, event, recipient) is what makes a period's report, a variant's threshold crossing
-- or a run's end one message per recipient: a claim inserts `on conflict do nothing`, so a second
-- scan or job of the same period claims nothing. Sent through the messaging pipeline
-- (src/messaging/ledger/send.ts) as the other ledgers: leased, marked sent, failed (with the
-- reason) or blocked, a retryable failure retried by the row's send job.
create table bis_merchant_messages (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null references shops on delete cascade,
  kind text not null check (kind in ('daily_summary', 'weekly_summary', 'weekly_csv', 'signup_threshold', 'alert_run_finished')),
  -- the period's first local day (YYYY-MM-DD) of a report; variant:<id>:runs:<n> of a threshold; run:<id> of a run's end
  event_key text not null,
  channel text not null default 'email' check (channel = 'email'),
  recipient text not null,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'blocked')),
  blocked_reason text,
  attempts integer not null default 0,
  last_error text,
  provider_message_id text,
  -- what the message is about: a report's period bounds and time zone, a variant's counts, a run's figures
  context jsonb not null default '{}',
  lease_pid integer,
  lease_backend_start timestamptz,
  sent_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (shop_id, kind, event_key, recipient)
);

create index bis_merchant_messages_shop_created on bis_merchant_messages (shop_id, created_at desc, id desc);
create index bis_merchant_messages_pending on bis_merchant_messages (created_at, id) where status = 'pending';
