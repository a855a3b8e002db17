-- The shop-wide storefront configuration metafield (namespace $app:preorder, key shop, on the
-- platform's shop; decision 0203): the digest of the value the platform last took, so a write
-- whose value did not change is skipped, and the last failure of the write job (kept until a
-- write succeeds) so the merchant and the operator see why the storefront is behind.
create table storefront_shop_metafields (
  shop_id uuid primary key references shops on delete cascade,
  digest text not null default '',
  written_at timestamptz,
  last_error text,
  last_error_at timestamptz,
  updated_at timestamptz not null default now()
);

-- Per (offer, variant) overrides of the offer's storefront shipping text and of its per-order
-- maximum (decision 0203). Kept apart from preorder_offer_variants, whose rows a resolution of an
-- all or collection source rewrites; an override of a variant that left the offer applies again
-- if it comes back. At least one of the two is set: a row with neither is deleted.
create table preorder_offer_variant_overrides (
  offer_id uuid not null references preorder_offers on delete cascade,
  shop_id uuid not null references shops on delete cascade,
  variant_id text not null,
  shipping_text text,
  max_count integer check (max_count >= 1),
  updated_at timestamptz not null default now(),
  primary key (offer_id, variant_id),
  check (shipping_text is not null or max_count is not null)
);
