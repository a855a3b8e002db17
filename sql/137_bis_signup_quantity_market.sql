-- A back-in-stock signup carries the units the customer wants and the market they signed up in
-- (issue 31, decision 0246). quantity: 1 for every signup so far (what a signup meant until now),
-- bounded as the API bounds it. market_id: the platform's market gid (markets.id) or null (no
-- market: any of the shop's stock alerts it). No foreign key: the markets are a mirror that a full
-- sync prunes, and a signup outlives the market it was made in (the alert then treats it as one
-- without a market, decision 0246).
alter table bis_signups
  add column quantity int not null default 1 constraint bis_signups_quantity_check check (quantity between 1 and 10000),
  add column market_id text;

-- The signups list's market filter.
create index bis_signups_market on bis_signups (shop_id, market_id, created_at desc) where market_id is not null;
