-- The shop's catalog as mirrored from the store platform (gid ids). `seen_at` is the start of the
-- sync run that last saw a row: a full sync removes rows it did not see.
create table products (
  shop_id uuid not null references shops on delete cascade,
  id text not null,
  title text not null,
  handle text not null,
  status text not null,
  tags text[] not null default '{}',
  vendor text,
  product_type text,
  collection_ids text[] not null default '{}',
  platform_updated_at timestamptz not null,
  seen_at timestamptz not null default now(),
  primary key (shop_id, id)
);

create index products_tags on products using gin (tags);
create index products_collections on products using gin (collection_ids);

create table variants (
  shop_id uuid not null references shops on delete cascade,
  id text not null,
  legacy_id bigint not null,
  product_id text not null,
  title text not null,
  sku text,
  price numeric(14, 2) not null,
  inventory_policy text not null,
  inventory_item_id text not null,
  platform_updated_at timestamptz not null,
  seen_at timestamptz not null default now(),
  primary key (shop_id, id)
);

create index variants_product on variants (shop_id, product_id);
create index variants_inventory_item on variants (shop_id, inventory_item_id);
create index variants_legacy on variants (shop_id, legacy_id);

create table inventory_levels (
  shop_id uuid not null references shops on delete cascade,
  inventory_item_id text not null,
  location_id text not null,
  available integer not null,
  platform_updated_at timestamptz not null,
  seen_at timestamptz not null default now(),
  primary key (shop_id, inventory_item_id, location_id)
);

create table collections (
  shop_id uuid not null references shops on delete cascade,
  id text not null,
  title text not null,
  handle text not null,
  platform_updated_at timestamptz not null,
  seen_at timestamptz not null default now(),
  primary key (shop_id, id)
);

alter table locations add column seen_at timestamptz not null default now();
alter table markets add column seen_at timestamptz not null default now();

-- Where each shop's mirror stands: incremental syncs ask for what changed after these marks.
create table catalog_sync_state (
  shop_id uuid primary key references shops on delete cascade,
  last_full_sync_at timestamptz,
  last_sync_at timestamptz,
  products_updated_mark timestamptz,
  variants_updated_mark timestamptz,
  inventory_updated_mark timestamptz
);
