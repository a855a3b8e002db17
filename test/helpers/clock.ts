import type pg from "pg";

/**
 * Counters kept in fixed windows aligned to the epoch (rate limits, login failures) are counted by
 * the database clock. A test whose requests must all fall in one window calls this first: when
 * fewer than `marginSeconds` of the current window are left, it waits for the next one to begin.
 */
export async function awayFromWindowEnd(pool: pg.Pool, windowSeconds: number, marginSeconds: number): Promise<void> {
  if (marginSeconds * 2 > windowSeconds) throw new Error("the margin must be at most half the window");
  const { rows } = await pool.query<{ e: number }>("select extract(epoch from clock_timestamp())::float8 as e");
  const left = windowSeconds - ((rows[0]?.e ?? 0) % windowSeconds);
  // A little past the boundary, so the database clock has crossed it too.
  if (left < marginSeconds) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 100));
}
