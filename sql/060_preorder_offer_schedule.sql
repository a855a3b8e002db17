-- An offer's schedule: when the worker enables and disables it (POST /preorders/offers/{id}/schedule).
-- Each edge is one graphile-worker job whose key is `offer_schedule:<offer id>:<edge>` with this
-- instant as its run_at; the job acts only while the column still holds the instant it was queued
-- for, and clears it when it has acted. Null: no such edge scheduled.
alter table preorder_offers
  add column schedule_enable_at timestamptz,
  add column schedule_disable_at timestamptz;
