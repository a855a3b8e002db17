import type { Db } from "../core/db.ts";

/** Wrong tokens one client address may try per window before every attempt is refused. */
export const LOGIN_MAX_FAILURES = 10;
export const LOGIN_WINDOW_SECONDS = 300;

const WINDOW = `floor(extract(epoch from now()) / ${LOGIN_WINDOW_SECONDS})::bigint`;
const RESET = `ceil(${LOGIN_WINDOW_SECONDS} - extract(epoch from now())::numeric % ${LOGIN_WINDOW_SECONDS})::int`;

/**
 * Seconds until `client` may try again, or undefined when it may try now. Checked before the
 * token, so a client past the limit learns nothing more, not even from the right token.
 */
export async function loginLockedFor(db: Db, client: string): Promise<number | undefined> {
  const { rows } = await db.query<{ reset: number }>(
    `select ${RESET} as reset from ops_login_failures where client = $1 and window_start = ${WINDOW} and failures >= $2`,
    [client, LOGIN_MAX_FAILURES],
  );
  return rows[0]?.reset;
}

/** Counts a wrong token from `client` (and forgets its earlier windows). */
export async function recordLoginFailure(db: Db, client: string): Promise<void> {
  await db.query(
    `with forget as (delete from ops_login_failures where client = $1 and window_start < ${WINDOW})
     insert into ops_login_failures (client, window_start, failures) values ($1, ${WINDOW}, 1)
     on conflict (client, window_start) do update set failures = ops_login_failures.failures + 1`,
    [client],
  );
}
