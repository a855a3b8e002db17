-- Delivery you can trust: a signup reads `notified` only once its alert was accepted by the
-- server. Claimed and not yet accepted it is `pending` (with the last error while it is retried);
-- failed for good (or refused at send) it is `failed`, with the reason, and can be sent again.
alter table bis_signups drop constraint bis_signups_status_check;
alter table bis_signups add constraint bis_signups_status_check
  check (status in ('waiting', 'pending', 'notified', 'failed', 'converted', 'unsubscribed'));
alter table bis_signups add column last_error text;

-- Signups taken to `notified` at the claim by earlier code whose alert did not go out.
update bis_signups s set status = case when l.status = 'pending' then 'pending' else 'failed' end,
  notified_at = null, last_error = l.last_error
from bis_ledger l
where l.signup_id = s.id and l.stage = 'initial' and s.status = 'notified' and l.status in ('pending', 'failed');

-- The sender of a pending ledger row: a lease held by one database connection (its backend pid
-- and start time). A row is sent only by the holder of a live lease; when that connection is gone
-- (its process killed) the lease is dead and the row may be sent again. Marks are per message, so a
-- crash re-sends at most what was in flight.
alter table bis_ledger add column lease_pid integer;
alter table bis_ledger add column lease_backend_start timestamptz;

create index bis_signups_failed on bis_signups (shop_id, variant_id, created_at, id) where status = 'failed';
create index bis_ledger_failed on bis_ledger (shop_id, created_at) where status = 'failed';
create index preorder_notifications_failed on preorder_notifications (shop_id, created_at) where status = 'failed';
