-- bis_notifications_shop_created (shop_id, created_at desc) leads bis_notifications_shop_created_id
-- (shop_id, created_at desc, id desc): every read it served, the longer one serves, and every
-- notification logged wrote both (decision 0182; test/schema-redundant-indexes.test.ts).
drop index if exists bis_notifications_shop_created;
