-- Operator sessions ended by logout before they expire. A session cookie is signed, not stored, so
-- logging out records its id here and the console refuses a listed id on every request. A row
-- goes once its session would have expired anyway (maintenance_prune). Logged, not unlogged: a
-- crash must not bring a logged-out session back.
create table ops_revoked_sessions (
  session_id text primary key,
  expires_at timestamptz not null
);
