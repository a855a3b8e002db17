-- The back-in-stock mark keeps one plan per connection (decision 0240). (The preorder
-- notifications' mark, over jsonb_to_recordset, kept its generic plan already.)
--
-- A PL/pgSQL function's statement is planned with the call's values (a custom plan) for its first
-- five calls; then PostgreSQL keeps a generic plan only when its estimated cost is not above the
-- custom plans' average. For the mark's statement over unnest() of its arrays it never was, so
-- every call planned the statement again: measured on 2026-12-03 (one connection, a flush of four
-- alerts, the local PostgreSQL 15), 3.25 ms a call, of which the statement's run was 0.4 ms; with
-- the generic plan, 1.44 ms. The generic plan is made with the function's enable_seqscan = off,
-- so every row it touches is found by its key, at any size of the ledger
-- (test/ledger-mark-plan-cache.test.ts).
alter function bis_alert_mark(uuid[], int[], timestamptz[], text[], boolean[], uuid[], uuid[], text[], text[], text[], text[], text[], text[], text[], date[])
  set plan_cache_mode = force_generic_plan;
