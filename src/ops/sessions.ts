import type { Db } from "../core/db.ts";
import type { Session } from "./auth.ts";

/** Ends a session before it expires (logout): its signed cookie no longer opens the console. */
export async function revokeSession(db: Db, session: Session): Promise<void> {
  await db.query(
    "insert into ops_revoked_sessions (session_id, expires_at) values ($1, to_timestamp($2 / 1000.0)) on conflict (session_id) do nothing",
    [session.id, session.expires],
  );
}

export async function isSessionRevoked(db: Db, sessionId: string): Promise<boolean> {
  return ((await db.query("select 1 from ops_revoked_sessions where session_id = $1", [sessionId])).rowCount ?? 0) > 0;
}

/**
 * Drops the revocations of sessions that have expired anyway (maintenance_prune). A web process
 * checks expiry by its own clock, so a revocation is kept an hour past it: a database clock running
 * ahead cannot revive a logged-out session for its last minutes.
 */
export async function pruneRevokedSessions(db: Db): Promise<number> {
  return (await db.query("delete from ops_revoked_sessions where expires_at < now() - interval '1 hour'")).rowCount ?? 0;
}
