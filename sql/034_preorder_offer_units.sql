-- limits.total.current_count is derived, never stored: the units on live preorder lines of the
-- offer (lines on its selling plan whose order is neither cancelled nor refunded). A stored count
-- could drift from the orders; this one cannot. preorder_order_lines_offer serves it.
create function preorder_offer_units(p_shop_id uuid, p_offer_id uuid) returns integer
language sql stable as $$
  select coalesce(sum(l.quantity), 0)::int
  from preorder_order_lines l
  join preorder_orders o on o.id = l.order_id
  where l.shop_id = p_shop_id and l.offer_id = p_offer_id and l.selling_plan_id is not null
    and o.status not in ('cancelled', 'refunded')
$$;

alter table preorder_offers drop column current_count;
