-- Deleting ledger rows (a signup or a shop deleted) sets bis_notifications.ledger_id to null: without
-- an index on it, each deleted ledger row read the whole notifications table (20,000 alerts' rows:
-- 2.5 minutes). With it, a delete is linear in what it deletes.
create index bis_notifications_ledger on bis_notifications (ledger_id) where ledger_id is not null;

-- The shop of a ledger row and of a reminder queue entry is its signup's: their rows go when the
-- signup goes, and the signup with the shop. The direct keys to shops only checked, at every
-- insert of the pipeline, the one shop row that every transaction of a restock touches, each check
-- taking a KEY SHARE lock on it (a multixact once two transactions hold it, and WAL for the lock).
alter table bis_ledger drop constraint bis_ledger_shop_id_fkey;
alter table bis_reminder_queue drop constraint bis_reminder_queue_shop_id_fkey;
