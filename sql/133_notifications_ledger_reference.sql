-- The notifications log's ledger_id loses its foreign key: each log entry's insert checked its
-- ledger row (a row lock, and WAL for it, per message), and each deleted ledger row set its log
-- entries' ledger_id to null (which needed the index of 130). The log keeps the id; the API shows
-- the message id only while its ledger row exists (src/back_in_stock/alerts/actions/notifications.ts),
-- as the set null did.
alter table bis_notifications drop constraint bis_notifications_ledger_id_fkey;
drop index bis_notifications_ledger;

-- The mark (132) inserts the reminder queue's row without a speculative insertion (`on conflict`
-- writes a second WAL record per row): a signup's initial alert is marked sent once, by the one
-- sender its ledger row is leased to, so the row cannot be there already but from an earlier,
-- recorded send.
create or replace function bis_alert_mark(ids uuid[], lease_pids int[], lease_starts timestamptz[], outcomes text[], attempted boolean[], shop_ids uuid[],
                               signup_ids uuid[], variant_ids text[], stages text[], channels text[], provider_message_ids text[], errors text[],
                               blocked_reasons text[], subjects text[], quota_periods date[]) returns void
language sql
set enable_seqscan = off
as $mark$
with r as (
      select * from unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::text[], $5::boolean[], $6::uuid[], $7::uuid[], $8::text[], $9::text[],
                           $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::date[])
        as r(id, lease_pid, lease_start, outcome, attempted, shop_id, signup_id, variant_id, stage, channel, provider_message_id, error, blocked_reason, subject, quota_period)
    ), marked as (
      update bis_ledger l set
        status = case when r.outcome = 'retry' then 'pending' else r.outcome end,
        attempts = l.attempts + case when r.attempted then 1 else 0 end,
        last_error = coalesce(r.error, r.blocked_reason, l.last_error),
        provider_message_id = coalesce(r.provider_message_id, l.provider_message_id),
        sent_at = case when r.outcome = 'sent' then now() else l.sent_at end,
        lease_pid = null, lease_backend_start = null,
        quota_period = case when r.outcome = 'retry' then l.quota_period end
      -- By the primary key ($1: the ids), and still leased to this sender, so still pending (only
      -- a lease's holder ends it). Not "status = 'pending'": from the partial indexes of pending
      -- rows the planner read every entry of a long run, the dead ones included.
      from r where l.id = any ($1::uuid[]) and l.id = r.id and l.lease_pid = r.lease_pid and l.lease_backend_start = r.lease_start
      returning l.id, l.signup_id, l.sent_at
    ), signups as (
      update bis_signups s set
        status = case r.outcome when 'sent' then 'notified' when 'retry' then 'pending' else 'failed' end,
        notified_at = case when r.outcome = 'sent' then now() else s.notified_at end,
        last_error = case when r.outcome = 'sent' then null
                          when r.outcome = 'blocked' then 'blocked: ' || r.blocked_reason else r.error end,
        updated_at = now()
      from r where r.stage = 'initial' and s.id = any ($7::uuid[]) and s.id = r.signup_id and s.status in ('waiting', 'pending')
    ), logged as (
      insert into bis_notifications (shop_id, signup_id, ledger_id, variant_id, stage, channel, status, blocked_reason, error, provider_message_id, subject)
      select r.shop_id, (select s.id from bis_signups s where s.id = r.signup_id), m.id, r.variant_id, r.stage, r.channel, r.outcome,
             r.blocked_reason, case when r.outcome = 'failed' then r.error end, r.provider_message_id, r.subject
      from r left join marked m on m.id = r.id
      where r.outcome <> 'retry' and (m.id is not null or not exists (select 1 from bis_ledger l where l.id = r.id))
    ), counted as (
      -- The plan's monthly quota (src/account/plans.ts): sent counted now, reservations left.
      insert into account_send_usage (shop_id, period_start, channel, sent, reserved)
      select d.shop_id, d.period_start, d.channel, sum(d.sent)::int, sum(d.reserved)::int
      from (
        select r.shop_id, date_trunc('month', now() at time zone 'UTC')::date as period_start, r.channel, 1 as sent, 0 as reserved
        from marked m join r on r.id = m.id where r.outcome = 'sent'
        union all
        select r.shop_id, r.quota_period, r.channel, 0, -1
        from marked m join r on r.id = m.id where r.outcome <> 'retry' and r.quota_period is not null
      ) d
      group by d.shop_id, d.period_start, d.channel
      on conflict (shop_id, period_start, channel) do update
        set sent = account_send_usage.sent + excluded.sent, reserved = greatest(account_send_usage.reserved + excluded.reserved, 0)
    )
    insert into bis_reminder_queue (signup_id, shop_id, initial_sent_at)
    select m.signup_id, r.shop_id, m.sent_at from marked m join r on r.id = m.id where r.outcome = 'sent' and r.stage = 'initial'
      and not exists (select 1 from bis_reminder_queue q where q.signup_id = m.signup_id);
$mark$;
