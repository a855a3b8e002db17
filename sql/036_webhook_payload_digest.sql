-- The digest of each delivery's payload: a signed body binds only its bytes, not the shop or
-- webhook id headers beside it, so the intake refuses a payload another shop already delivered
-- and treats one this shop delivered under another webhook id as a duplicate. jsonb's text is
-- canonical, so rows recorded before this column get the digest new rows get.
alter table webhook_deliveries add column payload_sha256 bytea;
update webhook_deliveries set payload_sha256 = sha256(convert_to(payload::text, 'UTF8'));
alter table webhook_deliveries alter column payload_sha256 set not null;
create index webhook_deliveries_payload_sha256 on webhook_deliveries (payload_sha256);
