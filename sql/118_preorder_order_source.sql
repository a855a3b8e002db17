-- Where the platform says an order was placed (decision 0213): its source name (`web`, `pos`,
-- `shopify_draft_order`, an app's...) and, for an order of the point of sale, its retail location
-- (a Location gid). Null for orders ingested before this, and where the payload names none.
alter table preorder_orders add column source_name text, add column retail_location_id text;
