-- The plan's monthly quota counted as messages are marked sent, per shop, month (UTC) and
-- channel, instead of counting the month's sent ledger rows before every chunk a sender
-- reserves: that count read every message of the month again (a batch of 100,000 read 25 million
-- index entries), and it forgot a message whose signup was deleted since.
create table account_send_usage (
  shop_id uuid not null references shops on delete cascade,
  period_start date not null,
  channel text not null check (channel in ('email', 'sms')),
  sent integer not null default 0,
  primary key (shop_id, period_start, channel)
);

insert into account_send_usage (shop_id, period_start, channel, sent)
select l.shop_id, date_trunc('month', l.sent_at at time zone 'UTC')::date, s.channel, count(*)
from bis_ledger l join bis_signups s on s.id = l.signup_id
where l.status = 'sent' and l.sent_at is not null
group by 1, 2, 3;
