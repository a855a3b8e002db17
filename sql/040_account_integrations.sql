-- Account integrations (GET/PATCH /account/integrations). Plain switches live in one document per
-- shop, validated by the application (src/providers/integrations.ts); absent keys take defaults.
-- The customer tag and its switch (commerce_platform, sync_customers_tag) are the back-in-stock
-- settings' tagging group, not stored here.
create table account_integrations (
  shop_id uuid primary key references shops on delete cascade,
  settings jsonb not null default '{}',
  updated_at timestamptz not null default now()
);

-- One e-mail provider connection of a shop: its API key or OAuth access token, sealed with the
-- service's secrets key (AES-256-GCM, src/core/secrets.ts; never in plain text), the audience
-- new signups go to and whether they are synced. verified_at: the provider last accepted the
-- credential; refused_at: it last refused it (the later of the two wins).
create table integration_connections (
  shop_id uuid not null references shops on delete cascade,
  provider text not null check (provider in ('email_provider_1', 'email_provider_2', 'email_provider_3')),
  credential bytea,
  list_id text,
  list_name text,
  sync_enabled boolean not null default false,
  verified_at timestamptz,
  refused_at timestamptz,
  connected_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (shop_id, provider)
);

-- The sync of one signup to one target (an e-mail provider, or the platform customer's tag):
-- written pending in the signup's transaction beside its graphile-worker job, updated by each
-- attempt. failed: final (refused, or out of attempts); skipped: the target was turned off before
-- the job ran.
create table signup_syncs (
  signup_id uuid not null references bis_signups on delete cascade,
  target text not null check (target in ('email_provider_1', 'email_provider_2', 'email_provider_3', 'commerce_platform')),
  shop_id uuid not null references shops on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'synced', 'failed', 'skipped')),
  attempts integer not null default 0,
  last_error text,
  list_id text,
  provider_member_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  synced_at timestamptz,
  primary key (signup_id, target)
);

create index signup_syncs_shop_status on signup_syncs (shop_id, status) where status in ('pending', 'failed');
