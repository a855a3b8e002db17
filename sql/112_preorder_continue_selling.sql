-- The variants an offer's continue_selling set to inventory policy CONTINUE on the platform, with the
-- policy each had before (what the sync restores when the offer ends, the variant leaves it, or the
-- setting is turned off). A variant in several offers keeps the policy it had before the first of
-- them: the last offer to let it go restores that, so a merchant's own CONTINUE stays CONTINUE. A
-- row is written after the platform took CONTINUE, and removed after the policy was restored.
create table preorder_offer_inventory_policies (
  offer_id uuid not null references preorder_offers on delete cascade,
  shop_id uuid not null references shops on delete cascade,
  variant_id text not null,
  original_policy text not null check (original_policy in ('DENY', 'CONTINUE')),
  set_at timestamptz not null default now(),
  primary key (offer_id, variant_id)
);
create index preorder_offer_inventory_policies_variant on preorder_offer_inventory_policies (shop_id, variant_id);
