-- An offer now puts one selling plan per enabled payment option on the platform (decision 0212,
-- amending 0032). Order lines find their offer, and the option the shopper chose, by any of the
-- offer's plans, including plans the platform no longer holds (an option disabled, the offer
-- detached): an order placed on one before keeps matching. Written by the offers' sync; read at
-- order ingest. preorder_offers.platform_selling_plan_id stays: the first plan's id.
create table preorder_offer_selling_plans (
  shop_id uuid not null references shops on delete cascade,
  platform_selling_plan_id text not null,
  offer_id uuid not null references preorder_offers on delete cascade,
  -- the payment option the plan charges by (payments.options[].type)
  payment_option text not null check (payment_option in ('full', 'deposit')),
  -- its place in the group (0 first); null once the plan is off the platform
  position integer,
  removed_at timestamptz,
  primary key (shop_id, platform_selling_plan_id)
);

create index preorder_offer_selling_plans_offer on preorder_offer_selling_plans (offer_id);

-- The one plan each offer has today: the deposit one when the deposit option is enabled (0032).
insert into preorder_offer_selling_plans (shop_id, platform_selling_plan_id, offer_id, payment_option, position)
select o.shop_id, o.platform_selling_plan_id, o.id,
  case when exists (
    select 1 from jsonb_array_elements(case when jsonb_typeof(o.settings #> '{payments,options}') = 'array' then o.settings #> '{payments,options}' else '[]'::jsonb end) opt
    where opt->>'type' = 'deposit' and opt->'enabled' = 'true'::jsonb
  ) then 'deposit' else 'full' end,
  0
from preorder_offers o
where o.platform_selling_plan_id is not null
on conflict do nothing;

-- The option a preorder line was bought with: the option of its plan; null when unknown (a
-- regular line, a line sold off the platform plan, a plan of no offer).
alter table preorder_order_lines add column payment_option text check (payment_option in ('full', 'deposit'));
