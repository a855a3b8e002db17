import { createHmac } from "node:crypto";
import type pg from "pg";
import type { PreparingDb } from "./rate-limit.ts";

/**
 * Requests per client that holds no API key (a shopper's address), counted in fixed windows in
 * PostgreSQL (client_rate_limit_windows, sql/120) so that every web process shares the count and a
 * restart does not forget it: the same mechanism as the API keys' budget (rate-limit.ts). Decision
 * 0215.
 *
 * The row's key is an HMAC, under the service's secret, of the limit's name, its window length and
 * the client's parts (say shop and address): no address is stored, and without the secret the key
 * cannot be matched against the 2^32 IPv4 addresses.
 */
export interface ClientRateLimitOptions {
  /** Names the limit: two limits never share a count. */
  name: string;
  /** The HMAC key of the stored client keys (the app's secret on the platform). */
  secret: string;
  /** Requests a client may make per window; the next are refused until the window ends. */
  limit: number;
  windowSeconds: number;
  /**
   * The clock windows are counted by, in milliseconds since the epoch (tests set it). Absent (the
   * service): the database's clock, the one every process shares.
   */
  now?: (() => number) | undefined;
}

/**
 * Counts the request and answers the count in one statement: the upsert's row lock makes two
 * processes counting the same client at once see 1 and 2, never 1 and 1. Windows start at multiples
 * of `$2` seconds since the epoch (by the database's clock unless `$3` gives the time in epoch
 * seconds). Named: it runs on every counted request, planned once per connection.
 */
const HIT: pg.QueryConfig<unknown[]> = {
  name: "client_rate_limit_hit",
  text: `with clock as (
       select (floor(e / $2::int) * $2::int)::bigint as window_start,
              ceil($2::int - (e - floor(e / $2::int) * $2::int))::int as reset_seconds
       from (select coalesce($3::float8, extract(epoch from clock_timestamp())::float8) as e) t
     ), hit as (
       insert into client_rate_limit_windows as w (client_key, window_start, window_seconds, hits)
       select $1::bytea, clock.window_start, $2::int, 1 from clock
       on conflict (client_key, window_start) do update set hits = w.hits + 1
       returning w.hits
     )
     select hit.hits, clock.reset_seconds from hit, clock`,
};

export class ClientRateLimit {
  private readonly db: PreparingDb;
  private readonly options: ClientRateLimitOptions;

  constructor(db: PreparingDb, options: ClientRateLimitOptions) {
    this.db = db;
    this.options = options;
  }

  /** The key the client's row is stored under: never the parts themselves. */
  clientKey(parts: readonly string[]): Buffer {
    const { name, windowSeconds, secret } = this.options;
    return createHmac("sha256", secret).update([name, String(windowSeconds), ...parts].join("\0")).digest();
  }

  /**
   * Counts one request of the client `parts` name (refused ones too: a client hammering a closed
   * window gains nothing). Answers undefined when it is within the limit, else the seconds until
   * the window ends (at least 1).
   */
  async hit(parts: readonly string[]): Promise<number | undefined> {
    const { windowSeconds, now, limit } = this.options;
    const values = [this.clientKey(parts), windowSeconds, now ? now() / 1000 : null];
    const { rows } = await this.db.query<{ hits: number; reset_seconds: number }>({ ...HIT, values });
    const row = rows[0];
    if (!row) throw new Error("client rate limit: the counting statement returned no row");
    return row.hits <= limit ? undefined : Math.max(1, row.reset_seconds);
  }
}
