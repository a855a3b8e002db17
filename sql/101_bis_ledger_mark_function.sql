-- The mark of back-in-stock messages (markAlertResults in src/back_in_stock/alerts/ledger.ts),
-- in one statement: the ledger rows (their lease ends), the signups, the notifications log, the
-- plan's usage, the quota reservations and the reminder queue. $1: the outcomes as JSON, $2:
-- their ledger ids.
--
-- A function, for its planner settings. A connection keeps the plan of a statement it runs often
-- (a generic plan, chosen at its sixth run); a plan made while the ledger was small (a shop's
-- first large restock) read the whole ledger and the reservations at every mark once the run had
-- claimed thousands of rows: in bench:alerts, half of the database's time, until autovacuum's
-- next analyze (test/alert-mark-plan-cache.test.ts). Every row the mark touches is found by its
-- key, so a plan without sequential scans is right at any size.
create function bis_ledger_mark(outcomes jsonb, ledger_ids uuid[]) returns void
language plpgsql
set enable_seqscan = off
as $mark$
begin
  with r as (
      select * from jsonb_to_recordset($1::jsonb)
        as r(id uuid, lease_pid int, lease_start timestamptz, outcome text, attempted boolean, shop_id uuid, signup_id uuid, variant_id text, stage text, channel text,
             provider_message_id text, error text, blocked_reason text, subject text)
    ), marked as (
      update bis_ledger l set
        status = case when r.outcome = 'retry' then 'pending' else r.outcome end,
        attempts = l.attempts + case when r.attempted then 1 else 0 end,
        last_error = coalesce(r.error, r.blocked_reason, l.last_error),
        provider_message_id = coalesce(r.provider_message_id, l.provider_message_id),
        sent_at = case when r.outcome = 'sent' then now() else l.sent_at end,
        lease_pid = null, lease_backend_start = null
      -- By the primary key ($2: the ids), and still leased to this sender, so still pending (only
      -- a lease's holder ends it). Not "status = 'pending'", nor a join on r alone: the planner
      -- expects 100 rows of r, and chose to read the whole pending index (every dead entry of a
      -- long run included) or the whole table at each mark.
      from r where l.id = any ($2::uuid[]) and l.id = r.id and l.lease_pid = r.lease_pid and l.lease_backend_start = r.lease_start
      returning l.id, l.signup_id, l.sent_at
    ), signups as (
      update bis_signups s set
        status = case r.outcome when 'sent' then 'notified' when 'retry' then s.status else 'failed' end,
        notified_at = case when r.outcome = 'sent' then now() else s.notified_at end,
        last_error = case when r.outcome = 'sent' then null
                          when r.outcome = 'blocked' then 'blocked: ' || r.blocked_reason else r.error end,
        updated_at = now()
      from r where r.stage = 'initial' and s.id = r.signup_id and s.status = 'pending'
    ), logged as (
      insert into bis_notifications (shop_id, signup_id, ledger_id, variant_id, stage, channel, status, blocked_reason, error, provider_message_id, subject)
      select r.shop_id, (select s.id from bis_signups s where s.id = r.signup_id), m.id, r.variant_id, r.stage, r.channel, r.outcome,
             r.blocked_reason, case when r.outcome = 'failed' then r.error end, r.provider_message_id, r.subject
      from r left join marked m on m.id = r.id
      where r.outcome <> 'retry' and (m.id is not null or not exists (select 1 from bis_ledger l where l.id = r.id))
    ), counted as (
      -- the plan's monthly quota (src/account/plans.ts), counted as it is used
      insert into account_send_usage (shop_id, period_start, channel, sent)
      select r.shop_id, date_trunc('month', now() at time zone 'UTC')::date, r.channel, count(*)
      from marked m join r on r.id = m.id where r.outcome = 'sent'
      group by r.shop_id, r.channel
      on conflict (shop_id, period_start, channel) do update set sent = account_send_usage.sent + excluded.sent
    ), released as (
      -- by the index (a join over the table's dead rows took longer than the rest of the mark)
      delete from account_send_reservations a where a.ledger_id = any (array(select r.id from r where r.outcome <> 'retry'))
    )
    insert into bis_reminder_queue (signup_id, shop_id, initial_sent_at)
    select m.signup_id, r.shop_id, m.sent_at from marked m join r on r.id = m.id where r.outcome = 'sent' and r.stage = 'initial'
    on conflict (signup_id) do nothing;
end
$mark$;
