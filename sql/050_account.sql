-- The Account area: the shop's plan, its account-wide documents (settings, sending identity, the
-- e-mail layout), the storefront translations, and the plan's send reservations.

-- One row per shop once anything is set; a shop without a row is on the default plan with the
-- shipped defaults. Documents are stored deep-partial (only what the merchant set), as bis_settings.
create table account_settings (
  shop_id uuid primary key references shops on delete cascade,
  plan text not null default 'growth' check (plan in ('free', 'starter', 'growth', 'scale')),
  -- A negotiated quota that replaces the plan's (operators set it with SQL); null: the plan's.
  monthly_alert_limit integer check (monthly_alert_limit >= 0),
  settings jsonb not null default '{}',
  sending jsonb not null default '{}',
  email_layout jsonb not null default '{}',
  updated_at timestamptz not null default now()
);

-- Storefront strings (the signup widget's labels and messages) a merchant overrode, per locale.
create table account_translations (
  shop_id uuid not null references shops on delete cascade,
  locale text not null,
  strings jsonb not null default '{}',
  updated_at timestamptz not null default now(),
  primary key (shop_id, locale)
);

-- A send the plan's monthly quota admitted and that is not marked yet (in flight). Taken on its
-- own short transaction under an advisory lock per shop, deleted in the send's transaction when
-- the message is marked. No foreign key to bis_ledger on purpose: the sender holds the ledger
-- row FOR UPDATE while it reserves on another connection, and a key check would wait for it.
-- A reservation whose ledger row is no longer pending counts for nothing.
create table account_send_reservations (
  ledger_id uuid primary key,
  shop_id uuid not null references shops on delete cascade,
  period_start date not null,
  created_at timestamptz not null default now()
);

create index account_send_reservations_shop on account_send_reservations (shop_id, period_start);

-- Messages sent in a period, per shop: the plan's usage and its quota check count these.
create index bis_ledger_sent_by_shop on bis_ledger (shop_id, sent_at) where status = 'sent';
