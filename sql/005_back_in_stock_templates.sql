-- A stage's on/off switch is per shop, not per locale.
create table bis_stage_settings (
  shop_id uuid not null references shops on delete cascade,
  stage text not null check (stage in ('initial', 'reminder', 'signup_thank_you')),
  enabled boolean not null,
  updated_at timestamptz not null default now(),
  primary key (shop_id, stage)
);

-- Merchant overrides; a missing row means the shipped default for that stage, locale and channel.
create table bis_templates (
  shop_id uuid not null references shops on delete cascade,
  stage text not null check (stage in ('initial', 'reminder', 'signup_thank_you')),
  locale text not null,
  channel text not null check (channel in ('email', 'sms')),
  subject text,
  body text not null,
  updated_at timestamptz not null default now(),
  primary key (shop_id, stage, locale, channel)
);
