-- Two writes less per alert (decision 0233, measured by bench:alerts):
--
-- The recovery sweep's index of pending rows by age goes: its scan (pending rows older than the
-- grace, oldest first, a page at a time) reads bis_ledger_pending (shop_id, created_at), which
-- holds only the same pending rows. Each claim wrote an entry in both.
drop index bis_ledger_pending_age;

-- The reminder queue's key to its signup goes: each alert's mark inserted the queue row, and the
-- key's check locked the signup row that the same mark had just updated (a row lock record per
-- alert). The row still goes with its signup: the signup's delete trigger (bis_signup_deleted,
-- sql/134) removes it, as the cascade did; the reminder scan joins the signup, so nothing is sent
-- for a signup that is gone.
alter table bis_reminder_queue drop constraint bis_reminder_queue_signup_id_fkey;
