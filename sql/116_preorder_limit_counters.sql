-- The counters the checkout's validation reads before an order (decision 0211): each offer's units
-- still available under limits.total.max (on the shop, one app metafield), and each customer's
-- units per offer (on the customer, one app metafield), for limits.per_customer.max.

-- What is left of an offer's total.max: total.max less its units preordered (preorder_offer_units,
-- the one count of them), never below 0; null without a total limit. The widget's remaining
-- route and the shop's counter both read it.
create function preorder_offer_remaining(p_shop_id uuid, p_offer_id uuid) returns integer
language sql stable as $$
  select greatest(0, (o.settings #>> '{limits,total,max}')::int - preorder_offer_units(o.shop_id, o.id))
  from preorder_offers o
  where o.shop_id = p_shop_id and o.id = p_offer_id and jsonb_typeof(o.settings #> '{limits,total,max}') = 'number'
$$;

-- A customer's units per offer over their live orders (lines on a selling plan, orders neither
-- cancelled nor refunded): the orders of the customer id, or of one of the e-mail addresses. One
-- definition for the per_customer.max rule at ingest and the customer's counter.
create function preorder_customer_offer_units(p_shop_id uuid, p_customer_id text, p_emails text[])
returns table (offer_id uuid, units integer)
language sql stable as $$
  select l.offer_id, sum(l.quantity)::int
  from preorder_orders o
  join preorder_order_lines l on l.order_id = o.id
  where o.shop_id = p_shop_id and (o.customer_id = p_customer_id or o.email = any(p_emails))
    and o.status not in ('cancelled', 'refunded')
    and l.offer_id is not null and l.selling_plan_id is not null
  group by l.offer_id
$$;

-- A customer's orders, for that count and for the customers an order's change moves.
create index preorder_orders_shop_customer on preorder_orders (shop_id, customer_id) where customer_id is not null;

-- What the platform last took of each counter metafield: owner 'shop' (the shop's remaining
-- units) or a customer's gid, the digest of the value, so an unchanged value is not sent again.
create table preorder_limit_counters (
  shop_id uuid not null references shops on delete cascade,
  owner_id text not null,
  digest text not null,
  written_at timestamptz not null default now(),
  primary key (shop_id, owner_id)
);

-- The offers whose customers' counters carry them: an offer that gets a per_customer.max has its
-- customers' counters queued once (their units were not on the platform before), and loses its
-- row when the limit goes.
create table preorder_limit_customer_offers (
  offer_id uuid primary key references preorder_offers on delete cascade,
  shop_id uuid not null references shops on delete cascade,
  created_at timestamptz not null default now()
);
