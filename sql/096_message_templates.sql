-- One template table for every outbound message, keyed by area + stage + locale + channel, and one
-- table of stage switches: the back-in-stock and preorder tables they replace had the same shape.
-- A missing template row means the shipped default; a missing switch, the stage's default.
create table message_templates (
  shop_id uuid not null references shops on delete cascade,
  area text not null check (area in ('back_in_stock', 'preorders')),
  stage text not null,
  locale text not null,
  channel text not null check (channel in ('email', 'sms')),
  subject text,
  body text not null,
  updated_at timestamptz not null default now(),
  primary key (shop_id, area, stage, locale, channel),
  check ((area = 'back_in_stock' and stage in ('initial', 'reminder', 'signup_thank_you'))
      or (area = 'preorders' and stage in ('confirmation', 'shipping_date_change', 'balance_due')))
);

create table message_stage_settings (
  shop_id uuid not null references shops on delete cascade,
  area text not null check (area in ('back_in_stock', 'preorders')),
  stage text not null,
  enabled boolean not null,
  updated_at timestamptz not null default now(),
  primary key (shop_id, area, stage),
  check ((area = 'back_in_stock' and stage in ('initial', 'reminder', 'signup_thank_you'))
      or (area = 'preorders' and stage in ('confirmation', 'shipping_date_change', 'balance_due')))
);

insert into message_templates (shop_id, area, stage, locale, channel, subject, body, updated_at)
select shop_id, 'back_in_stock', stage, locale, channel, subject, body, updated_at from bis_templates;
insert into message_templates (shop_id, area, stage, locale, channel, subject, body, updated_at)
select shop_id, 'preorders', stage, locale, channel, subject, body, updated_at from preorder_templates;
insert into message_stage_settings (shop_id, area, stage, enabled, updated_at)
select shop_id, 'back_in_stock', stage, enabled, updated_at from bis_stage_settings;
insert into message_stage_settings (shop_id, area, stage, enabled, updated_at)
select shop_id, 'preorders', stage, enabled, updated_at from preorder_stage_settings;

drop table bis_templates;
drop table preorder_templates;
drop table bis_stage_settings;
drop table preorder_stage_settings;
