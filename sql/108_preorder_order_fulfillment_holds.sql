-- The platform fulfillment holds the app placed on an order's fulfillment orders for its offers'
-- shipping.fulfillment.hold (src/preorders/orders/fulfillment-holds.ts): one entry per hold
-- ({ fulfillment_order_id, hold_id, offer_ids, reason, reason_notes, held_at, released_at }),
-- released by the order's release; and the last failure of that job (null once it succeeds).
alter table preorder_orders
  add column fulfillment_holds jsonb not null default '[]'::jsonb,
  add column fulfillment_hold_error text;
