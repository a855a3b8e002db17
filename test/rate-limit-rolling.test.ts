import { describe, expect, it } from "vitest";
import { hashApiKey } from "../src/db/api-keys.ts";
import { authenticateAndCharge, rollingUse } from "../src/core/rate-limit.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/**
 * The budget rolls over the last window's length, as STOQ's does (issue 31): with fixed windows
 * a client spent its 360 points at the end of one minute and 360 more at the start of the next,
 * 720 in two seconds, because the whole budget came back at the boundary.
 */

const env = useTestEnv({ shop: false });
const POINTS = 360;
const WINDOW = 60;

describe("the rolling budget", () => {
  it("counts the previous window's points by the share of it still within the last window", () => {
    const at = (previous: number, elapsed: number) => ({ previous, elapsed, now: 6000 + elapsed, window_start: "100" });
    // A fresh key: exactly what it spent.
    expect(rollingUse(WINDOW, at(0, 10), 5, 1, POINTS)).toEqual({ used: 5, resetSeconds: 1, resetAt: 6120 });
    // 360 spent in the previous window, one second into this one: 354 of them still count.
    expect(rollingUse(WINDOW, at(360, 1), 1, 1, POINTS).used).toBe(355);
    // Half way: half of them.
    expect(rollingUse(WINDOW, at(360, 30), 10, 1, POINTS).used).toBe(190);
    // Refused 20 points short: the previous window's points fade by 6 a second, so 4 seconds (rounded up).
    const refused = rollingUse(WINDOW, at(360, 1), 20, 1, POINTS);
    expect(refused.used).toBeGreaterThan(POINTS);
    expect(refused.resetSeconds).toBe(Math.ceil(60 * (1 - (360 - 20) / 360) - 1));
    // This window alone is over the budget: the next window, as this one's points fade there.
    const over = rollingUse(WINDOW, at(0, 50), 400, 1, POINTS);
    expect(over.resetSeconds).toBe(Math.ceil(10 + 60 * (1 - 359 / 400)));
    // Every point counted now has expired once the next window has passed.
    expect(over.resetAt).toBe(100 * 60 + 120);
  });

  it("does not give the whole budget back at a window's boundary", async () => {
    const { apiKey } = await createShopWithKey(env.app.pool, "Rolling Budget");
    const hash = hashApiKey(apiKey);
    // A clock the test moves: the last second of one window, then the first of the next.
    let now = Math.floor(Date.now() / 1000 / WINDOW) * WINDOW * 1000 + (WINDOW - 1) * 1000;
    const policy = { points: POINTS, windowSeconds: WINDOW, now: () => now };
    let passed = 0;
    for (let i = 0; i < POINTS; i++) if (((await authenticateAndCharge(env.app.pool, hash, 1, policy))?.used ?? Infinity) <= POINTS) passed += 1;
    expect(passed).toBe(POINTS);
    now += 2000;
    const results: boolean[] = [];
    for (let i = 0; i < 40; i++) results.push(((await authenticateAndCharge(env.app.pool, hash, 1, policy))?.used ?? Infinity) <= POINTS);
    // One second into the next window, 354 of the 360 still count: 6 more pass, not 360 (a fixed window gave them all back).
    expect(results.filter(Boolean)).toHaveLength(6);
    // Half a window later half the budget is back.
    now += 29_000;
    const later = await authenticateAndCharge(env.app.pool, hash, 1, policy);
    expect(later?.used).toBeLessThanOrEqual(POINTS);
  });
});
