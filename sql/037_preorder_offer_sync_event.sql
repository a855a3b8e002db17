-- The last notable thing an offer's sync did that the merchant should know of although the sync
-- succeeded (e.g. the platform had lost the offer's selling plan group and it was created again).
-- Shown as sync.last_event; kept until another event replaces it.
alter table preorder_offers add column sync_last_event text;
