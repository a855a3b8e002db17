import type pg from "pg";

export interface RateLimitPolicy {
  points: number;
  windowSeconds: number;
}

export interface Charge {
  keyId: string;
  shopId: string;
  /** Points used in the current window, this request included. */
  used: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** A pool or a client: anything that runs a named (prepared) statement. */
export interface PreparingDb {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig<unknown[]>): Promise<pg.QueryResult<R>>;
}

/**
 * Authenticates the key and charges its budget in one statement, so the hot path pays one round
 * trip. Windows are fixed and counted in PostgreSQL (by its clock), shared by every process.
 * Answers undefined for an unknown or revoked key, which is charged nothing.
 *
 * The statement runs on every request, so it is a named (prepared) statement: each connection
 * parses and plans it once, instead of once per request.
 */
export async function authenticateAndCharge(db: PreparingDb, keyHash: Buffer, cost: number, policy: RateLimitPolicy): Promise<Charge | undefined> {
  const { rows } = await db.query<{ key_id: string; shop_id: string; used: number; reset_seconds: number }>({
    name: "rate_limit_authenticate_and_charge",
    text: `with clock as (
       select floor(e / $3)::bigint as window_start, ceil($3 - (e - floor(e / $3) * $3))::int as reset_seconds
       from (select extract(epoch from clock_timestamp())::float8 as e) t
     ), key as (
       select id, shop_id from api_keys where key_hash = $1 and revoked_at is null
     ), charged as (
       insert into rate_limit_windows as w (key_id, window_start, points)
       select key.id, clock.window_start, $2 from key, clock
       on conflict (key_id, window_start) do update set points = w.points + excluded.points
       returning w.key_id, w.points
     )
     select key.id as key_id, key.shop_id, charged.points as used, clock.reset_seconds
     from key join charged on charged.key_id = key.id, clock`,
    values: [keyHash, cost, policy.windowSeconds],
  });
  const row = rows[0];
  if (!row) return undefined;
  return { keyId: row.key_id, shopId: row.shop_id, used: row.used, resetSeconds: Math.max(1, row.reset_seconds) };
}

export function rateLimitHeaders(policy: RateLimitPolicy, charge: Charge): Record<string, string> {
  return {
    "x-ratelimit-limit": String(policy.points),
    "x-ratelimit-remaining": String(Math.max(0, policy.points - charge.used)),
    "x-ratelimit-reset": String(charge.resetSeconds),
  };
}
