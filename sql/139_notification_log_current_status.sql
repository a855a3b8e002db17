-- The merchant's back-in-stock notifications log (GET /back_in_stock/notifications): one entry per
-- message with its current status, under its message id (decision 0249). `bis_notifications`
-- (sql/134) holds the final outcomes only (sent, failed, blocked) and stays what the plan's usage,
-- the reports and a customer's data request count. The log is that plus the messages still
-- pending: claimed and not sent yet, retried after a failure that may pass, or sent again after
-- they failed (the console's or the CLI's retry, a notify). Such a message was absent from the
-- log, so a resent failure vanished until its resend's outcome was recorded. Each entry carries
-- the message's attempts (and sent_at), which the list did not show.
--
-- Read only: the ledger's rows as they are, by the indexes they already have (the log's own index
-- of final rows, bis_ledger_log, and the pending rows by shop, bis_ledger_pending); the pipeline
-- writes nothing more per message.

create view bis_notification_log as
  select l.id::text as id, l.id as message_key, null::bigint as entry_id, l.shop_id, l.signup_id, l.id as ledger_id,
         s.variant_id, l.stage, s.channel, l.status,
         case when l.status = 'blocked' then l.last_error end as blocked_reason,
         case when l.status = 'failed' then l.last_error end as error,
         l.provider_message_id, l.delivery_status, coalesce(l.logged_at, l.created_at) as created_at, l.subject,
         l.attempts, case when l.status = 'sent' then l.sent_at end as sent_at
  from bis_ledger l join bis_signups s on s.id = l.signup_id
  where l.status <> 'pending'
  union all
  -- A pending message: its last attempt's error while it is retried (or its failure's, resent);
  -- listed where its last outcome was logged, or at its claim when it has none yet.
  select l.id::text, l.id, null::bigint, l.shop_id, l.signup_id, l.id,
         s.variant_id, l.stage, s.channel, l.status,
         null::text,
         case when l.attempts > 0 then l.last_error end,
         l.provider_message_id, l.delivery_status, coalesce(l.logged_at, l.created_at), l.subject,
         l.attempts, null::timestamptz
  from bis_ledger l join bis_signups s on s.id = l.signup_id
  where l.status = 'pending'
  union all
  select coalesce(e.ledger_id::text, e.id::text), e.ledger_id, e.id, e.shop_id, e.signup_id, null::uuid,
         e.variant_id, e.stage, e.channel, e.status, e.blocked_reason, e.error,
         e.provider_message_id, e.delivery_status, e.created_at, e.subject,
         null::int, null::timestamptz
  from bis_notification_entries e;
