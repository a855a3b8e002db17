-- Wrong operator tokens per client address and fixed window, shared by every web process: past
-- the limit, /ops/login refuses every attempt from that address until the window ends. Unlogged:
-- a crash forgets the counts, which only ever errs towards letting attempts through.
create unlogged table ops_login_failures (
  client text not null,
  window_start bigint not null,
  failures integer not null,
  primary key (client, window_start)
);
