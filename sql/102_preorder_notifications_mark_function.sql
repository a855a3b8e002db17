-- The mark of preorder notifications (markPreorderNotifications in
-- src/preorders/notifications/ledger.ts): each outcome on its pending row, whose lease ends; a
-- retry stays pending with its error. $1: the outcomes as JSON.
--
-- A function, for its planner settings, as bis_ledger_mark (101): a connection's kept plan, made
-- while the table was small, read the whole table at every mark once a bulk release had queued
-- thousands of notifications (test/ledger-mark-plan-cache.test.ts). The rows are found by their
-- keys, so a plan without sequential scans is right at any size.
create function preorder_notifications_mark(outcomes jsonb) returns void
language plpgsql
set enable_seqscan = off
as $mark$
begin
  update preorder_notifications n set
    status = case when r.outcome = 'retry' then 'pending' else r.outcome end,
    attempts = n.attempts + case when r.attempted then 1 else 0 end,
    blocked_reason = r.blocked_reason, last_error = coalesce(r.error, n.last_error),
    provider_message_id = coalesce(r.provider_message_id, n.provider_message_id),
    sent_at = case when r.outcome = 'sent' then now() else n.sent_at end, updated_at = now(),
    lease_pid = null, lease_backend_start = null
  from jsonb_to_recordset($1::jsonb) as r(id uuid, outcome text, attempted boolean, error text, blocked_reason text, provider_message_id text)
  where n.id = r.id and n.status = 'pending';
end
$mark$;
