-- The subject line an e-mail was sent with (rendered from the stage's template for the signup's
-- locale), kept in the notifications log so GET /back_in_stock/notifications/{id} shows what the
-- customer received. Null for text messages, refusals, and rows logged before this column.
alter table bis_notifications add column subject text;
