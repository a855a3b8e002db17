-- Order lines now find their offer through preorder_offers.platform_selling_plan_id (the offers'
-- sync writes it); the interim mapping table of 030 goes.
drop table preorder_selling_plan_offers;

create index preorder_offers_selling_plan on preorder_offers (shop_id, platform_selling_plan_id) where platform_selling_plan_id is not null;
