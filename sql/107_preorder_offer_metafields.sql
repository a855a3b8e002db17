-- The storefront configuration metafield the offer sync wrote on each variant (one app-owned json
-- metafield per offer and variant, decision 0196): the digest of the value written, so a sync writes
-- only what changed and deletes what it wrote on variants that left the offer, or on all of them
-- when the offer ends or is deleted. A row is written after the platform took the value, and
-- removed after the platform deleted it.
create table preorder_offer_metafields (
  offer_id uuid not null references preorder_offers on delete cascade,
  shop_id uuid not null references shops on delete cascade,
  owner_id text not null,
  digest text not null,
  written_at timestamptz not null default now(),
  primary key (offer_id, owner_id)
);
