-- Preorder offers (the platform's selling plans). The twelve capability groups live in `settings`,
-- one key per group, validated by the application's schema of each group
-- (src/actions/preorders/offers/<group>.ts); absent keys take that schema's defaults. What other
-- parts query by (status, the product source, sync state) has its own columns.
create table preorder_offers (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null references shops on delete cascade,
  name text not null,
  internal_name text not null,
  status text not null default 'draft' check (status in ('draft', 'active', 'disabled')),
  settings jsonb not null default '{}',
  -- products: which variants the offer applies to
  products_source text not null default 'custom' check (products_source in ('all', 'custom', 'collection')),
  products_collection_id text,
  products_exclusion_tag text,
  products_excluded_variant_ids text[] not null default '{}',
  -- limits.total.current_count: units preordered so far, kept by the preorder count recalculation
  current_count integer not null default 0,
  -- bumped by every committed change (markOfferChanged): a sync can tell whether it is still current
  revision bigint not null default 1,
  sync_status text not null default 'pending' check (sync_status in ('pending', 'synced', 'failed')),
  sync_last_error text,
  synced_revision bigint,
  synced_at timestamptz,
  platform_selling_plan_group_id text,
  platform_selling_plan_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);

create index preorder_offers_shop_created on preorder_offers (shop_id, created_at desc, id desc) where deleted_at is null;
create index preorder_offers_sync_pending on preorder_offers (shop_id) where sync_status <> 'synced';

-- The variants an offer applies to: chosen (custom source) or resolved from the catalog mirror
-- (all, collection). `legacy_id` is the platform's numeric id, kept so the offer can list its
-- variants even after the mirror has dropped one.
create table preorder_offer_variants (
  offer_id uuid not null references preorder_offers on delete cascade,
  shop_id uuid not null references shops on delete cascade,
  variant_id text not null,
  legacy_id bigint not null,
  added_at timestamptz not null default now(),
  primary key (offer_id, variant_id)
);

create index preorder_offer_variants_legacy on preorder_offer_variants (offer_id, legacy_id);
create index preorder_offer_variants_shop_variant on preorder_offer_variants (shop_id, variant_id);
