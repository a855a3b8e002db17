-- Preorder orders: the platform orders with at least one line item on a selling plan, built from
-- the order webhooks (platform_orders keeps every order raw). Every column is a fact, either the
-- platform's (as last described) or ours (released_at, cancelled_at, balance_requested_at);
-- `status` is derived from them by the database and can never be written.
create table preorder_orders (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null references shops on delete cascade,
  platform_order_id text not null,
  name text,
  -- lower-cased: the order's e-mail, else its customer's
  email text,
  customer_id text,
  currency text not null,
  total_price numeric(14, 2) not null,
  total_outstanding numeric(14, 2) not null,
  -- the largest outstanding amount ever seen: the balance left after the deposit (0: paid in full)
  balance_amount numeric(14, 2) not null default 0,
  financial_status text,
  fulfillment_status text,
  tags text[] not null default '{}',
  -- the market the order was placed in, when the platform's payload names one
  market_id text,
  platform_cancelled_at timestamptz,
  platform_created_at timestamptz not null,
  platform_updated_at timestamptz not null,
  -- ours
  released_at timestamptz,
  cancelled_at timestamptz,
  balance_requested_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  status text generated always as (
    case
      when cancelled_at is not null or platform_cancelled_at is not null then 'cancelled'
      when financial_status = 'refunded' then 'refunded'
      when fulfillment_status = 'fulfilled' then 'fulfilled'
      when released_at is not null then 'released'
      when total_outstanding > 0 then 'awaiting_balance'
      when balance_amount > 0 then 'balance_collected'
      else 'placed'
    end
  ) stored,
  unique (shop_id, platform_order_id)
);

create index preorder_orders_shop_created on preorder_orders (shop_id, platform_created_at desc, id desc);
create index preorder_orders_shop_status on preorder_orders (shop_id, status, platform_created_at desc);
create index preorder_orders_shop_email on preorder_orders (shop_id, email);

-- Every line item of a preorder order; the preorder ones carry their selling plan.
create table preorder_order_lines (
  order_id uuid not null references preorder_orders on delete cascade,
  shop_id uuid not null references shops on delete cascade,
  platform_line_id text not null,
  variant_id text,
  product_id text,
  quantity integer not null,
  price numeric(14, 2) not null,
  selling_plan_id text,
  -- the offer whose selling plan this is (see preorder_selling_plan_offers); null until known
  offer_id text,
  primary key (order_id, platform_line_id)
);

create index preorder_order_lines_variant on preorder_order_lines (shop_id, variant_id) include (quantity) where selling_plan_id is not null;
create index preorder_order_lines_offer on preorder_order_lines (shop_id, offer_id) where selling_plan_id is not null;
create index preorder_order_lines_plan on preorder_order_lines (shop_id, selling_plan_id) where selling_plan_id is not null;

-- Which offer a platform selling plan belongs to: written by the offers' sync when a plan is
-- created (linkSellingPlansToOffer), read when an order arrives.
create table preorder_selling_plan_offers (
  shop_id uuid not null references shops on delete cascade,
  selling_plan_id text not null,
  offer_id text not null,
  primary key (shop_id, selling_plan_id)
);

-- preorder_count per variant: the units on live (not cancelled, not refunded) preorder lines.
-- Kept by order ingestion and by bulk_recalculate_preorder_counts.
create table preorder_variant_counts (
  shop_id uuid not null references shops on delete cascade,
  variant_id text not null,
  preorder_count integer not null,
  updated_at timestamptz not null default now(),
  primary key (shop_id, variant_id)
);
