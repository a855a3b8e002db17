-- A fourth preorder notification stage: payment_request, the platform's link to pay an order's
-- remaining balance, sent on request (bulk_send_payment_collection_url, decision 0207).
-- NOT VALID: the new checks only widen the old ones, so the existing rows hold; adding them does
-- not scan the tables under this migration's exclusive lock. 115 validates them in its own
-- transaction, which lets reads and writes go on.
alter table preorder_notifications drop constraint preorder_notifications_stage_check;
alter table preorder_notifications add constraint preorder_notifications_stage_check
  check (stage in ('confirmation', 'shipping_date_change', 'balance_due', 'payment_request')) not valid;

alter table message_templates drop constraint message_templates_check;
alter table message_templates add constraint message_templates_check
  check ((area = 'back_in_stock' and stage in ('initial', 'reminder', 'signup_thank_you'))
      or (area = 'preorders' and stage in ('confirmation', 'shipping_date_change', 'balance_due', 'payment_request'))) not valid;

alter table message_stage_settings drop constraint message_stage_settings_check;
alter table message_stage_settings add constraint message_stage_settings_check
  check ((area = 'back_in_stock' and stage in ('initial', 'reminder', 'signup_thank_you'))
      or (area = 'preorders' and stage in ('confirmation', 'shipping_date_change', 'balance_due', 'payment_request'))) not valid;
