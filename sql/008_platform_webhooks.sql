-- Every accepted webhook delivery, once: the platform may deliver the same webhook id again.
create table webhook_deliveries (
  id bigint generated always as identity primary key,
  shop_id uuid not null references shops on delete cascade,
  webhook_id text not null,
  topic text not null,
  payload jsonb not null,
  received_at timestamptz not null default now(),
  processed_at timestamptz,
  unique (shop_id, webhook_id)
);

create index webhook_deliveries_received on webhook_deliveries (received_at);

-- Orders as the platform last described them; the preorder order model builds on these.
create table platform_orders (
  shop_id uuid not null references shops on delete cascade,
  id text not null,
  payload jsonb not null,
  platform_updated_at timestamptz not null,
  primary key (shop_id, id)
);
