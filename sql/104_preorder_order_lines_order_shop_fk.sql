-- A line's shop is its order's, by constraint: the by-offer report counts its rows on the lines
-- alone (src/preorders/reports/query.ts), which is the same count only while this holds. The
-- composite key replaces the order's own foreign key (it checks the same order and the shop).
alter table preorder_orders add constraint preorder_orders_id_shop unique (id, shop_id);
alter table preorder_order_lines
  add constraint preorder_order_lines_order_shop_fk foreign key (order_id, shop_id) references preorder_orders (id, shop_id) on delete cascade,
  drop constraint preorder_order_lines_order_id_fkey;
