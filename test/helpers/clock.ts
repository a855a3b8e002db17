import type pg from "pg";
import { waitFor } from "./wait.ts";

/**
 * Counters kept in fixed windows aligned to the epoch (rate limits, login failures) are counted by
 * the database clock. A test whose requests must all fall in one window calls this first: it
 * returns once at least `marginSeconds` of the current window are left, by that clock (at once,
 * or when the next window has begun).
 */
export async function awayFromWindowEnd(pool: pg.Pool, windowSeconds: number, marginSeconds: number): Promise<void> {
  if (marginSeconds * 2 > windowSeconds) throw new Error("the margin must be at most half the window");
  await waitFor(
    `at least ${marginSeconds} s left of the current ${windowSeconds} s window`,
    async () => {
      const { rows } = await pool.query<{ e: number }>("select extract(epoch from clock_timestamp())::float8 as e");
      return windowSeconds - ((rows[0]?.e ?? 0) % windowSeconds) >= marginSeconds ? true : undefined;
    },
    (marginSeconds + 5) * 1000,
  );
}
