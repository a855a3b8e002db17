-- Fixed-window counters shared by every web process. Unlogged: a crash forgets the current
-- window's counts, which only ever errs towards letting requests through.
create unlogged table rate_limit_windows (
  key_id uuid not null,
  window_start bigint not null,
  points integer not null,
  primary key (key_id, window_start)
);
