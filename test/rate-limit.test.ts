import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, hashApiKey, revokeApiKey } from "../src/db/api-keys.ts";
import { type ApiAnswer, type TestApp, api, createShopWithKey, startTestApp } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const POINTS = 360;
/** Seconds the whole exhaustion run may take without ever reaching the end of its window. */
const MARGIN_SECONDS = 30;

// Its apps are its own: two instances sharing one budget, started once the window is chosen.
const env = useTestEnv({ app: false, shop: false });
let one: TestApp;
let two: TestApp;
let windowSeconds: number;
/** Seconds left in the current window, by the database clock, when the apps started. */
let secondsLeftAtStart: number;
let startedAt: number;
let shopId: string;
let key: string;

/**
 * Points are counted per fixed window by the database clock (the budget rolls over two of them). Prefer the default 60 s window; when too
 * little of it is left, take the first other window length whose current window has the margin, so
 * the run never straddles a boundary and needs no waiting.
 */
async function chooseWindow(pool: TestApp["pool"]): Promise<{ windowSeconds: number; secondsLeft: number }> {
  const { rows } = await pool.query<{ e: number }>("select extract(epoch from clock_timestamp())::float8 as e");
  const epoch = rows[0]?.e ?? 0;
  for (let w = 60; w <= 600; w++) {
    const left = w - (epoch % w);
    if (left >= MARGIN_SECONDS) return { windowSeconds: w, secondsLeft: left };
  }
  throw new Error("no window length with enough time left");
}

/** Runs the calls with at most `limit` in flight, answers in call order. */
async function bounded<T>(calls: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array<T>(calls.length);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      const call = calls[index];
      if (call) results[index] = await call();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

async function pointsCharged(): Promise<number> {
  const { rows } = await one.pool.query<{ total: number }>("select coalesce(sum(points), 0)::int as total from rate_limit_windows");
  return rows[0]?.total ?? -1;
}

beforeAll(async () => {
  const probe = await startTestApp(env.db.url);
  const chosen = await chooseWindow(probe.pool);
  await probe.close();
  windowSeconds = chosen.windowSeconds;
  secondsLeftAtStart = chosen.secondsLeft;
  startedAt = Date.now();
  const overrides = { RATE_LIMIT_POINTS: String(POINTS), RATE_LIMIT_WINDOW_SECONDS: String(windowSeconds) };
  one = await startTestApp(env.db.url, overrides);
  two = await startTestApp(env.db.url, overrides);
  ({ shopId, apiKey: key } = await createShopWithKey(one.pool));
});

afterAll(async () => {
  await two?.close();
  await one?.close();
});

describe("one budget per key, shared by every server instance", () => {
  let answers: ApiAnswer[] = [];

  it("lets exactly 360 points through across two instances: 180 reads and 90 writes", async () => {
    const read = () => api(one, "GET", "/account/languages", { key });
    const write = (i: number) => () => api(i % 2 === 0 ? one : two, "PATCH", "/account/languages", { key, body: { app_locale: "en" } });
    // 180 reads on instance one, 90 writes alternating between both, interleaved so both charge concurrently.
    const calls: (() => Promise<ApiAnswer>)[] = [];
    for (let i = 0; i < 180; i++) {
      calls.push(read);
      if (i % 2 === 0) calls.push(write(i / 2));
    }
    expect(calls).toHaveLength(270);
    answers = await bounded(calls, 10);

    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(180);
    expect(statuses.filter((s) => s === 202)).toHaveLength(90);
    for (const answer of answers) {
      expect(answer.headers.get("x-ratelimit-limit")).toBe(String(POINTS));
      expect(answer.headers.get("retry-after")).toBeNull();
    }
    // Every charge is atomic across both instances: no two answers saw the same budget.
    const remaining = answers.map((a) => Number(a.headers.get("x-ratelimit-remaining")));
    expect(new Set(remaining).size).toBe(270);
    expect(Math.min(...remaining)).toBe(0);
    expect(Math.max(...remaining)).toBeLessThanOrEqual(POINTS - 1);
    expect(await pointsCharged()).toBe(360);
    // The run stayed inside one window.
    expect((Date.now() - startedAt) / 1000).toBeLessThan(secondsLeftAtStart);
  });

  it("answers the 361st point with 429, Retry-After and no remaining budget, on either instance", async () => {
    const refused = await api(two, "GET", "/account/languages", { key });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ errors: ["Rate limit exceeded"] });
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("x-ratelimit-limit")).toBe(String(POINTS));
    const retryAfter = refused.headers.get("retry-after") ?? "";
    expect(retryAfter).toMatch(/^\d+$/);
    const seconds = Number(retryAfter);
    expect(seconds).toBeGreaterThanOrEqual(1);
    // The budget rolls (test/rate-limit-rolling.test.ts): this window alone is spent, so a point fits
    // again in the next window once a small share of this one's 360 points has faded.
    const left = Math.ceil(secondsLeftAtStart);
    expect(seconds).toBeLessThanOrEqual(left + Math.ceil(windowSeconds * 0.05));
    // X-RateLimit-Reset (a Unix timestamp, as STOQ sends it): when every point counted now has expired, the end of the next window.
    const resetAt = Number(refused.headers.get("x-ratelimit-reset"));
    const untilReset = resetAt - Date.now() / 1000;
    expect(untilReset).toBeGreaterThan(windowSeconds - 2);
    expect(untilReset).toBeLessThanOrEqual(left + windowSeconds + 2);
    expect(refused.headers.get("x-request-id")).toBeTruthy();

    const onOne = await api(one, "PATCH", "/account/languages", { key, body: { app_locale: "de" } });
    expect(onOne.status).toBe(429);
    expect(onOne.body).toEqual({ errors: ["Rate limit exceeded"] });
    expect(onOne.headers.get("retry-after")).toMatch(/^\d+$/);
    // The refused write did not run.
    const { rows } = await one.pool.query<{ app_locale: string }>("select app_locale from shops where id = $1", [shopId]);
    expect(rows[0]?.app_locale).toBe("en");
    // Rate limiting comes before routing.
    expect((await api(one, "GET", "/nope", { key })).status).toBe(429);
  });

  it("gives another key of the same shop its own budget", async () => {
    const { apiKey: other } = await createApiKey(one.pool, shopId);
    const answer = await api(two, "GET", "/account/languages", { key: other });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-ratelimit-remaining")).toBe(String(POINTS - 1));
    const write = await api(one, "PATCH", "/account/languages", { key: other, body: { app_locale: "en" } });
    expect(write.status).toBe(202);
    expect(write.headers.get("x-ratelimit-remaining")).toBe(String(POINTS - 3));
    // The exhausted key is still refused.
    expect((await api(one, "GET", "/account/languages", { key })).status).toBe(429);
  });

  it("charges nothing for an invalid or revoked key", async () => {
    const { apiKey: revoked } = await createApiKey(one.pool, shopId);
    expect(await revokeApiKey(one.pool, revoked)).toBe(true);
    const before = await pointsCharged();
    const answers401 = await bounded(
      [
        ...Array.from({ length: 20 }, () => () => api(one, "GET", "/account/languages", { key: "pbk_invalid" })),
        ...Array.from({ length: 20 }, () => () => api(two, "PATCH", "/account/languages", { key: revoked, body: { app_locale: "en" } })),
      ],
      10,
    );
    for (const answer of answers401) {
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ errors: ["X-Auth-Token is missing or invalid"] });
      expect(answer.headers.get("x-ratelimit-remaining")).toBeNull();
    }
    expect(await pointsCharged()).toBe(before);
    const { rows } = await one.pool.query(
      "select 1 from rate_limit_windows w join api_keys k on k.id = w.key_id where k.key_hash = $1",
      [hashApiKey(revoked)],
    );
    expect(rows).toHaveLength(0);
  });
});
