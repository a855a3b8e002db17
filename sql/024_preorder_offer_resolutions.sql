-- Catalog resolution of offers whose products source is `all` or `collection`
-- (src/actions/preorders/sync/resolve.ts): the job that resolves the mirrored catalog into
-- preorder_offer_variants, and the source it was enqueued for. A change to an offer whose source
-- key differs from the one recorded here enqueues a new resolution; one still queued is reused.
create table preorder_offer_resolutions (
  offer_id uuid primary key references preorder_offers on delete cascade,
  shop_id uuid not null references shops on delete cascade,
  -- source, collection, exclusion tag and excluded ids, as one comparable text
  source_key text not null,
  job_id uuid references jobs on delete set null,
  resolved_at timestamptz,
  -- the offer's variant count after the last resolution
  variants integer,
  updated_at timestamptz not null default now()
);
