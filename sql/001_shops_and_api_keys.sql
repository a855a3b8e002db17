create table shops (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  is_demo boolean not null default false,
  default_locale text not null default 'en',
  app_locale text not null default 'en',
  multi_language_enabled boolean not null default false,
  product_translations_enabled boolean not null default false,
  -- locales published on the store platform; filled by the platform sync
  published_locales text[] not null default '{en}',
  -- access scopes the merchant granted the app on the store platform
  granted_scopes text[] not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create unique index shops_single_demo on shops (is_demo) where is_demo;

-- Keys are high-entropy random tokens, so a SHA-256 digest is a safe, constant-cost lookup hash.
create table api_keys (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null references shops on delete cascade,
  key_hash bytea not null unique,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);

create index api_keys_shop on api_keys (shop_id);
