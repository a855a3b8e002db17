-- The app's lifecycle on the store (issue 29, decision 0222): app/uninstalled drops the shop's
-- token and marks it uninstalled (its jobs end skipped, nothing is sent for it, the API still
-- answers reads); a reinstall (PlatformRuntime.connect) clears the mark. shop/redact, 48 hours
-- after an uninstall, deletes the shop's data and keeps this row as a tombstone marked redacted,
-- so the platform's redeliveries are still recognised (decision 0223). platform_connected_at is
-- when the current token was stored.
alter table shops
  add column platform_connected_at timestamptz,
  add column platform_uninstalled_at timestamptz,
  add column platform_redacted_at timestamptz;

-- X-Shopify-Triggered-At of each delivery: an app/uninstalled retried after a reinstall was
-- triggered before it, and must not drop the new token (null for deliveries recorded before).
alter table webhook_deliveries add column triggered_at timestamptz;
