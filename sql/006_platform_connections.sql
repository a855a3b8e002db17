-- How the service reaches each shop on the store platform. The access token is encrypted by the
-- application (AES-256-GCM, see src/core/secrets.ts); the database never sees it in clear.
alter table shops
  add column platform_domain text,
  add column platform_graphql_url text,
  add column platform_access_token bytea;

create unique index shops_platform_domain on shops (platform_domain) where platform_domain is not null;
