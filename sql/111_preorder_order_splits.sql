-- Splitting an order's preorder items off for their offers' shipping.fulfillment.split
-- (src/preorders/orders/splits.ts, decision 0204): what was decided and done so far, so a retried
-- job neither splits twice nor makes a second new order ({ type, state, offer_ids, fulfillment_orders,
-- orders: [{ key, name, line_item_ids, variant_ids, draft_order_id, platform_order_id }], edited,
-- requested_at, done_at }; null: no split offer), and the last failure of the split job.
alter table preorder_orders
  add column order_split jsonb,
  add column order_split_error text;
