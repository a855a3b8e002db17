-- Fixed-window counters of clients that hold no API key (the storefront's signups per shopper
-- address, decision 0215), shared by every web process like rate_limit_windows (002), whose key is
-- an API key's id and whose windows are all RATE_LIMIT_WINDOW_SECONDS long. Here the key is an
-- HMAC (under the app's secret) of the limit's name, its window length and the client's identity
-- (shop and address): no address is stored. Each row says its own window, so the prune needs no
-- limit's length. Unlogged: a crash forgets the current window's counts, which only ever errs
-- towards letting requests through.
create unlogged table client_rate_limit_windows (
  client_key bytea not null,
  -- Epoch seconds at which the window starts; it ends window_seconds later.
  window_start bigint not null,
  window_seconds integer not null check (window_seconds > 0),
  hits integer not null,
  primary key (client_key, window_start)
);
