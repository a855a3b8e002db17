-- The platform's translated product titles (translatableResource, read_translations), cached per
-- shop, product and locale for the messages that name a product while product_translations_enabled
-- is on. title null: the platform has no translation in that locale (the message uses the title).
-- A row older than the cache's lifetime (src/messaging/product-titles.ts) is asked for again.
create table product_title_translations (
  shop_id uuid not null references shops on delete cascade,
  product_id text not null,
  locale text not null,
  title text,
  fetched_at timestamptz not null default now(),
  primary key (shop_id, product_id, locale)
);
