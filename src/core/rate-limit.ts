import pg from "pg";

export interface RateLimitPolicy {
  points: number;
  windowSeconds: number;
  /**
   * The clock windows are counted by, in milliseconds since the epoch (tests set it). Absent (the
   * service): the database's clock, the one every process shares.
   */
  now?: (() => number) | undefined;
}

interface Charge {
  keyId: string;
  shopId: string;
  /** Points used within the last window's length, this request included (rollingUse). */
  used: number;
  /** Seconds until a request of this cost fits again (Retry-After). */
  resetSeconds: number;
  /** When every point counted now has expired, in seconds since the epoch (X-RateLimit-Reset, as STOQ sends it). */
  resetAt: number;
}

/**
 * The budget rolls over the last window's length (as STOQ's does): what counts now is the current
 * window's points and the previous window's, weighted by the share of it still within the last
 * `window` seconds (the sliding-window counter: no per-request history, one row per key and window).
 * A fixed window gave the whole budget back at each boundary, so a client could spend it twice
 * within a second across one. Answers the points used (rounded up), the seconds until a request of
 * this cost fits again (Retry-After) and when every point counted now has expired (X-RateLimit-Reset).
 */
export function rollingUse(
  window: number,
  at: { previous: number; elapsed: number; window_start: string },
  current: number,
  cost: number,
  points: number,
): { used: number; resetSeconds: number; resetAt: number } {
  const remainingShare = Math.max(0, 1 - at.elapsed / window);
  const used = Math.ceil(current + at.previous * remainingShare - 1e-9);
  let wait: number;
  if (current <= points && at.previous > 0) {
    // The previous window's points fade out during this one.
    wait = Math.max(0, window * (1 - (points - current) / at.previous) - at.elapsed);
  } else if (current <= points) {
    wait = 0;
  } else {
    // This window alone is over: wait for the next, as this one's points fade there.
    wait = window - at.elapsed + window * Math.max(0, 1 - (points - cost) / current);
  }
  const windowStart = Number(at.window_start) * window;
  const resetAt = current > 0 ? windowStart + 2 * window : windowStart + window;
  return { used, resetSeconds: Math.max(1, Math.ceil(wait)), resetAt };
}

/** A pool or a client: anything that runs a named (prepared) statement. */
export interface PreparingDb {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig<unknown[]>): Promise<pg.QueryResult<R>>;
}

/**
 * Authenticates keys and charges their budgets in one statement. Points are counted per fixed
 * window in PostgreSQL (by its clock, unless `$4` gives the time in epoch seconds), shared by every
 * process; the statement also answers the key's previous window and how far into the current one
 * it is, from which the budget rolls (rollingUse).
 * `$1` holds distinct key hashes in ascending order and `$2` the points to charge each: rows are
 * locked in that order, so two processes charging the same keys never deadlock. An unknown or
 * revoked key yields no row and is charged nothing. It runs on every request, so it is a named (prepared) statement, planned once per
 * connection rather than once per request.
 */
const CHARGE: pg.QueryConfig<unknown[]> = {
  name: "rate_limit_authenticate_and_charge",
  text: `with clock as (
       select floor(e / $3)::bigint as window_start, (e - floor(e / $3) * $3)::float8 as elapsed
       from (select coalesce($4::float8, extract(epoch from clock_timestamp())::float8) as e) t
     ), wanted as (
       select key_hash, cost, ord from unnest($1::bytea[], $2::int[]) with ordinality as u(key_hash, cost, ord)
     ), key as (
       select k.id, k.shop_id, k.key_hash, wanted.cost, wanted.ord
       from wanted join api_keys k on k.key_hash = wanted.key_hash and k.revoked_at is null
     ), charged as (
       insert into rate_limit_windows as w (key_id, window_start, points)
       select key.id, clock.window_start, key.cost from key, clock order by key.ord
       on conflict (key_id, window_start) do update set points = w.points + excluded.points
       returning w.key_id, w.points
     ), previous as (
       select w.key_id, w.points from rate_limit_windows w, clock
       where w.key_id in (select id from key) and w.window_start = clock.window_start - 1
     )
     select key.key_hash, key.id as key_id, key.shop_id, charged.points as used, coalesce(previous.points, 0) as previous,
            clock.elapsed, clock.window_start
     from key join charged on charged.key_id = key.id left join previous on previous.key_id = key.id, clock`,
};

interface ChargeRow {
  key_hash: Buffer;
  key_id: string;
  shop_id: string;
  used: number;
  /** The key's points in the window before this one. */
  previous: number;
  /** Seconds into the current window. */
  elapsed: number;
  /** bigint: node-postgres answers it as a string. */
  window_start: string;
}

interface Pending {
  keyHash: Buffer;
  cost: number;
  resolve: (charge: Charge | undefined) => void;
  reject: (error: unknown) => void;
}

/** How a charge counts its window: its length, the budget, and the clock (absent: the database's). */
type WindowClock = Pick<RateLimitPolicy, "windowSeconds" | "now" | "points">;

/** Requests charged by one statement at most; the rest wait for the next one. */
const MAX_BATCH = 500;

/**
 * Runs the charge statement for a batch of requests: each key is charged the sum of its requests'
 * costs, and each request gets the count it would have seen had the requests run one by one in
 * arrival order (so every answer still sees its own, distinct budget).
 */
async function chargeBatch(db: PreparingDb, clock: WindowClock, batch: Pending[]): Promise<void> {
  const byKey = new Map<string, { keyHash: Buffer; total: number; requests: Pending[] }>();
  for (const request of batch) {
    const id = request.keyHash.toString("hex");
    const entry = byKey.get(id);
    if (entry) {
      entry.total += request.cost;
      entry.requests.push(request);
    } else {
      byKey.set(id, { keyHash: request.keyHash, total: request.cost, requests: [request] });
    }
  }
  const keys = [...byKey.values()].sort((a, b) => Buffer.compare(a.keyHash, b.keyHash));
  const values = [keys.map((k) => k.keyHash), keys.map((k) => k.total), clock.windowSeconds, clock.now ? clock.now() / 1000 : null];
  const { rows } = await db.query<ChargeRow>({ ...CHARGE, values });
  const found = new Map(rows.map((row) => [row.key_hash.toString("hex"), row]));
  for (const [id, key] of byKey) {
    const row = found.get(id);
    let used = row ? row.used - key.total : 0;
    for (const request of key.requests) {
      if (!row) {
        request.resolve(undefined);
        continue;
      }
      used += request.cost;
      request.resolve({ keyId: row.key_id, shopId: row.shop_id, ...rollingUse(clock.windowSeconds, row, used, request.cost, clock.points) });
    }
  }
}

/** Runs a batch and never throws: a failed statement (or anything else) fails every request of the batch. */
function settle(db: PreparingDb, clock: WindowClock, batch: Pending[]): Promise<void> {
  return chargeBatch(db, clock, batch).catch((error: unknown) => {
    for (const request of batch) request.reject(error);
  });
}

/**
 * Group charging for one pool: while a charge statement is in flight, the requests that arrive
 * wait and then share the next statement. An idle server sends each request's charge at once; a
 * busy one pays one statement (and one round trip) for many requests instead of one each.
 */
class ChargeBatcher {
  private readonly db: PreparingDb;
  private readonly clock: WindowClock;
  private queue: Pending[] = [];
  private running = false;

  constructor(db: PreparingDb, clock: WindowClock) {
    this.db = db;
    this.clock = clock;
  }

  charge(keyHash: Buffer, cost: number): Promise<Charge | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ keyHash, cost, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        await settle(this.db, this.clock, batch);
      }
    } finally {
      this.running = false;
    }
  }
}

/** A batcher per pool, window length and budget, and clock (the database's: undefined). */
type ByClock = Map<(() => number) | undefined, ChargeBatcher>;
const batchers = new WeakMap<pg.Pool, Map<string, ByClock>>();

function batcherFor(pool: pg.Pool, clock: WindowClock): ChargeBatcher {
  let byWindow = batchers.get(pool);
  if (!byWindow) batchers.set(pool, (byWindow = new Map<string, ByClock>()));
  const windowKey = `${String(clock.windowSeconds)}:${String(clock.points)}`;
  let byClock = byWindow.get(windowKey);
  if (!byClock) byWindow.set(windowKey, (byClock = new Map<(() => number) | undefined, ChargeBatcher>()));
  let batcher = byClock.get(clock.now);
  if (!batcher) byClock.set(clock.now, (batcher = new ChargeBatcher(pool, { windowSeconds: clock.windowSeconds, now: clock.now, points: clock.points })));
  return batcher;
}

/**
 * Authenticates the key and charges its budget: one statement, shared with the other requests that
 * the same pool charges at the same time. Answers undefined for an unknown or revoked key, which
 * is charged nothing. A client (rather than a pool) may be inside a transaction of its own, so its
 * charge always runs alone, on that client.
 */
export async function authenticateAndCharge(db: PreparingDb, keyHash: Buffer, cost: number, policy: RateLimitPolicy): Promise<Charge | undefined> {
  if (db instanceof pg.Pool) return batcherFor(db, policy).charge(keyHash, cost);
  return new Promise((resolve, reject) => void settle(db, policy, [{ keyHash, cost, resolve, reject }]));
}

export function rateLimitHeaders(policy: RateLimitPolicy, charge: Charge): Record<string, string> {
  return {
    "x-ratelimit-limit": String(policy.points),
    "x-ratelimit-remaining": String(Math.max(0, policy.points - charge.used)),
    // A Unix timestamp in seconds, as STOQ's clients read it (issue 31); Retry-After on a 429 stays seconds to wait (the spec).
    "x-ratelimit-reset": String(charge.resetAt),
  };
}
