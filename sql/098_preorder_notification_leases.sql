-- One send pipeline for every area's messages (src/messaging/ledger): a pending preorder
-- notification is sent only by the holder of a live lease (the backend pid and start time of the
-- sender's database connection), as back-in-stock alerts are, instead of a row lock held in a
-- transaction across the send. A killed sender's connection ends, and its leases with it.
alter table preorder_notifications add column lease_pid integer;
alter table preorder_notifications add column lease_backend_start timestamptz;
