create table locations (
  shop_id uuid not null references shops on delete cascade,
  id text not null,
  name text not null,
  active boolean not null default true,
  updated_at timestamptz not null default now(),
  primary key (shop_id, id)
);

create table markets (
  shop_id uuid not null references shops on delete cascade,
  id text not null,
  name text not null,
  active boolean not null default true,
  is_primary boolean not null default false,
  countries text[] not null default '{}',
  location_ids text[] not null default '{}',
  updated_at timestamptz not null default now(),
  primary key (shop_id, id)
);
