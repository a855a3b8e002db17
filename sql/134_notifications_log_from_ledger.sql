-- The notifications log served from the ledger row: a message's final outcome is its bis_ledger
-- row (status sent, failed or blocked, with the time it was recorded, the subject it was sent
-- with and the text message's delivery report), not a second insert per message. What claims no
-- ledger row stays in a table of its own, bis_notification_entries: the refusals that claim
-- nothing (logRefusal), and the entries of a deleted signup's messages, kept once their ledger
-- rows go with the signup. `bis_notifications` is the view of both (decision 0233).
--
-- A log entry's id is its message id (the ledger row's, as the ops console, the CLI and the
-- message's own id show it); an entry with no message keeps its number. Each message is one
-- entry with its latest outcome: a resent message's earlier failure is not a second entry.

alter table bis_notifications rename to bis_notification_entries;
alter index bis_notifications_pkey rename to bis_notification_entries_pkey;
alter index bis_notifications_provider rename to bis_notification_entries_provider;
alter index bis_notifications_shop_created_id rename to bis_notification_entries_shop_created_id;
alter index bis_notifications_signup rename to bis_notification_entries_signup;
alter index bis_notifications_variant rename to bis_notification_entries_variant;
-- A deleted signup's entries are found by their message id (GET /back_in_stock/notifications/{id}).
create index bis_notification_entries_message on bis_notification_entries (ledger_id) where ledger_id is not null;

alter table bis_ledger add column logged_at timestamptz;
alter table bis_ledger add column subject text;
alter table bis_ledger add column delivery_status text;

-- Each message's latest logged outcome moves onto its row; its entries go.
update bis_ledger l set logged_at = e.created_at, subject = e.subject, delivery_status = e.delivery_status
from (
  select distinct on (ledger_id) ledger_id, created_at, subject, delivery_status
  from bis_notification_entries where ledger_id is not null
  order by ledger_id, created_at desc, id desc
) e
where l.id = e.ledger_id;
delete from bis_notification_entries e where e.ledger_id is not null and exists (select 1 from bis_ledger l where l.id = e.ledger_id);
update bis_ledger set logged_at = coalesce(sent_at, created_at) where status <> 'pending' and logged_at is null;

-- The log's order (newest first) and the plan's monthly refusal count, per shop. It replaces the
-- index of sent messages by shop, which nothing reads since the plan's usage became a counter
-- (sql/131): the mark writes one entry here instead of one there.
drop index bis_ledger_sent_by_shop;
create index bis_ledger_log on bis_ledger (shop_id, (coalesce(logged_at, created_at)) desc) where status <> 'pending';

create view bis_notifications as
  select l.id::text as id, l.id as message_key, null::bigint as entry_id, l.shop_id, l.signup_id, l.id as ledger_id,
         s.variant_id, l.stage, s.channel, l.status,
         case when l.status = 'blocked' then l.last_error end as blocked_reason,
         case when l.status = 'failed' then l.last_error end as error,
         l.provider_message_id, l.delivery_status, coalesce(l.logged_at, l.created_at) as created_at, l.subject
  from bis_ledger l join bis_signups s on s.id = l.signup_id
  where l.status <> 'pending'
  union all
  select coalesce(e.ledger_id::text, e.id::text), e.ledger_id, e.id, e.shop_id, e.signup_id, null::uuid,
         e.variant_id, e.stage, e.channel, e.status, e.blocked_reason, e.error,
         e.provider_message_id, e.delivery_status, e.created_at, e.subject
  from bis_notification_entries e;

-- A deleted signup's logged messages are kept as entries, without the signup (its contact goes
-- with it). Not when its shop is being deleted: the log goes with the shop. Its reminder queue row
-- goes too (that table's key to the signup is dropped by sql/135). A before-delete trigger runs
-- once the signup's row is locked, so it sees what a mark committed meanwhile.
create function bis_signup_deleted() returns trigger
language plpgsql
as $deleted$
begin
  delete from bis_reminder_queue where signup_id = old.id;
  if exists (select 1 from shops where id = old.shop_id) then
    insert into bis_notification_entries (shop_id, signup_id, ledger_id, variant_id, stage, channel, status, blocked_reason, error,
                                          provider_message_id, delivery_status, created_at, subject)
    select l.shop_id, null, l.id, old.variant_id, l.stage, old.channel, l.status,
           case when l.status = 'blocked' then l.last_error end, case when l.status = 'failed' then l.last_error end,
           l.provider_message_id, l.delivery_status, coalesce(l.logged_at, l.created_at), l.subject
    from bis_ledger l where l.signup_id = old.id and l.status <> 'pending';
  end if;
  return old;
end
$deleted$;

create trigger bis_signups_deleted before delete on bis_signups for each row execute function bis_signup_deleted();

-- The mark (133) records the final outcome on the ledger row itself (logged_at, subject; a new
-- provider message id clears the previous delivery report) and logs nothing else, but a message
-- whose ledger row went with its signup while it was being sent: that one is kept as an entry.
-- It is PL/pgSQL around its one statement (UPDATE ... FROM unnest(...) with its CTEs) for its
-- plan: PostgreSQL 15 plans a `language sql` function's statement again at every call (an SQL
-- function keeps no plan across queries), and this statement's parse and plan cost about 2 ms,
-- against 0.1 ms for its run on a flush of a few rows; PL/pgSQL keeps the statement's plan
-- for the connection (a generic plan from the sixth call, made with the function's
-- enable_seqscan = off, so by the keys whatever the ledger's size was). Measured with pgbench on
-- the local PostgreSQL 15, one connection, a flush of two rows that match none: 462 calls a
-- second as `language sql`, 9,406 as PL/pgSQL (decision 0233).
create or replace function bis_alert_mark(ids uuid[], lease_pids int[], lease_starts timestamptz[], outcomes text[], attempted boolean[], shop_ids uuid[],
                               signup_ids uuid[], variant_ids text[], stages text[], channels text[], provider_message_ids text[], errors text[],
                               blocked_reasons text[], subjects text[], quota_periods date[]) returns void
language plpgsql
set enable_seqscan = off
as $mark$
#variable_conflict use_column
begin
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
        delivery_status = case when r.provider_message_id is not null then null else l.delivery_status end,
        sent_at = case when r.outcome = 'sent' then now() else l.sent_at end,
        logged_at = case when r.outcome = 'retry' then l.logged_at else now() end,
        subject = case when r.outcome = 'retry' then l.subject else coalesce(r.subject, l.subject) end,
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
    ), kept as (
      insert into bis_notification_entries (shop_id, signup_id, ledger_id, variant_id, stage, channel, status, blocked_reason, error, provider_message_id, subject)
      select r.shop_id, null, r.id, r.variant_id, r.stage, r.channel, r.outcome,
             r.blocked_reason, case when r.outcome = 'failed' then r.error end, r.provider_message_id, r.subject
      from r left join marked m on m.id = r.id
      where r.outcome <> 'retry' and m.id is null and not exists (select 1 from bis_ledger l where l.id = r.id)
        and exists (select 1 from shops sh where sh.id = r.shop_id)
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
end
$mark$;
