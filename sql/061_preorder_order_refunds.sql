-- Refunds recorded by the app (POST /preorders/orders/{id}/refund): the amount refunded so far
-- (partial refunds add up) and, once everything paid is refunded, when. The order's status is
-- derived from its facts: a refund recorded in full makes it `refunded`, as the platform's
-- financial_status 'refunded' does. PostgreSQL 15 cannot change a generated expression in place:
-- the column is added again with the same expression plus the new fact, and its index with it.
alter table preorder_orders
  add column refunded_amount numeric(14, 2) not null default 0 check (refunded_amount >= 0),
  add column refunded_at timestamptz;

alter table preorder_orders drop column status;

alter table preorder_orders add column status text generated always as (
  case
    when cancelled_at is not null or platform_cancelled_at is not null then 'cancelled'
    when financial_status = 'refunded' or refunded_at is not null then 'refunded'
    when fulfillment_status = 'fulfilled' then 'fulfilled'
    when released_at is not null then 'released'
    when total_outstanding > 0 then 'awaiting_balance'
    when balance_amount > 0 then 'balance_collected'
    else 'placed'
  end
) stored;

create index preorder_orders_shop_status on preorder_orders (shop_id, status, platform_created_at desc);
