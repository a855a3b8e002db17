-- The offers' rules an order broke when it arrived (limits, markets, mixed cart): written once, by
-- the order's ingest (src/preorders/orders/rule-breaks.ts), answered with the order.
alter table preorder_orders add column rule_breaks jsonb not null default '[]'::jsonb;
