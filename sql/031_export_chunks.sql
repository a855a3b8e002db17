-- Large exports (preorder reports) written as they are produced: the file is the concatenation of
-- its chunks in seq order; its `exports` row keeps empty `bytes`. Stored uncompressed
-- (EXTERNAL): compressing megabytes of CSV on every write costs more than the disk it saves.
create table export_chunks (
  export_id uuid not null references exports on delete cascade,
  seq integer not null,
  bytes bytea not null,
  primary key (export_id, seq)
);

alter table export_chunks alter column bytes set storage external;
