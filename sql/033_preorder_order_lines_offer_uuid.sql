-- An order line's offer is a preorder_offers row: a uuid with its foreign key, so reports join
-- offers by plain equality (a soft-deleted offer stays; a removed one unlinks its lines).
alter table preorder_order_lines
  alter column offer_id type uuid using (case when offer_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then offer_id::uuid end),
  add constraint preorder_order_lines_offer_fk foreign key (offer_id) references preorder_offers on delete set null;
