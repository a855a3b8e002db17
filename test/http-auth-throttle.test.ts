import { afterEach, describe, expect, it, vi } from "vitest";
import { AUTH_FAILURES_PER_WINDOW, AuthThrottle } from "../src/http/auth-throttle.ts";
import { api } from "./helpers/app.ts";
import { TestClock } from "./helpers/clock.ts";
import { useTestEnv } from "./helpers/fixture.ts";

// Behind a trusted proxy on loopback: X-Forwarded-For names the client, so one test can be many addresses.
// The app counts failures by this clock: a test that needs them in one window starts a fresh one.
const clock = new TestClock();
const env = useTestEnv({ config: { TRUST_PROXY: "127.0.0.1, ::1" }, now: clock.now });

const from = (address: string, key?: string) => ({ ...(key ? { key } : {}), headers: { "x-forwarded-for": address } });

afterEach(() => {
  vi.restoreAllMocks();
});

describe("requests without a valid key, per client address", () => {
  it("answers the 61st from one address 429 with Retry-After before looking its key up; another address still gets 401", async () => {
    clock.nextWindow(60);
    const attacker = "203.0.113.7";
    const statuses = new Set<number>();
    for (let i = 0; i < AUTH_FAILURES_PER_WINDOW; i++) {
      // Wrong keys, missing keys and MCP all count.
      const answer =
        i % 3 === 0
          ? await api(env.app, "GET", "/account/languages", from(attacker))
          : i % 3 === 1
            ? await api(env.app, "GET", "/account/languages", from(attacker, `pbk_wrong_${i}`))
            : await api(env.app, "POST", "/mcp", { ...from(attacker, "pbk_wrong"), body: { jsonrpc: "2.0", id: 1, method: "tools/list" } });
      statuses.add(answer.status);
    }
    expect([...statuses]).toEqual([401]);

    const queries = vi.spyOn(env.app.pool, "query");
    const refused = await api(env.app, "GET", "/account/languages", from(attacker, "pbk_wrong"));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ errors: ["Rate limit exceeded"] });
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    // Refused before the lookup, a right key included: the address's requests cost no database work.
    expect((await api(env.app, "GET", "/account/languages", from(attacker, env.key))).status).toBe(429);
    expect((await api(env.app, "POST", "/mcp", { ...from(attacker, env.key), body: { jsonrpc: "2.0", id: 1, method: "tools/list" } })).status).toBe(429);
    const v1 = await fetch(`${env.app.origin}/api/v1/external/preorders`, { method: "POST", headers: { "x-forwarded-for": attacker, "x-auth-token": env.key } });
    expect(v1.status).toBe(429);
    expect(await v1.json()).toEqual({ errors: { base: ["Rate limit exceeded"] } });
    expect(queries).not.toHaveBeenCalled();
    // The open documents stay open.
    expect((await fetch(`${env.app.origin}/api/v2/external/llms.txt`, { headers: { "x-forwarded-for": attacker } })).status).toBe(200);

    const other = "203.0.113.8";
    expect((await api(env.app, "GET", "/account/languages", from(other, "pbk_wrong"))).status).toBe(401);
    expect((await api(env.app, "GET", "/account/languages", from(other, env.key))).status).toBe(200);
  });

  it("does not count answers other than 401 (a valid key's requests, its own rate limit)", async () => {
    const client = "203.0.113.9";
    for (let i = 0; i < AUTH_FAILURES_PER_WINDOW + 5; i++) {
      const answer = await api(env.app, "GET", "/no-such-route", from(client, env.key));
      expect(answer.status).not.toBe(401);
    }
    expect((await api(env.app, "GET", "/account/languages", from(client, "pbk_wrong"))).status).toBe(401);
  });
});

describe("AuthThrottle", () => {
  it("counts in fixed windows: a new window forgets the last one's failures", () => {
    let now = 60_000 * 1000 + 15_000;
    const throttle = new AuthThrottle({ limit: 2, windowSeconds: 60, now: () => now });
    throttle.fail("a");
    expect(throttle.refusedFor("a")).toBeUndefined();
    throttle.fail("a");
    expect(throttle.refusedFor("a")).toBe(45);
    expect(throttle.refusedFor("b")).toBeUndefined();
    now += 45_000;
    expect(throttle.refusedFor("a")).toBeUndefined();
  });
});
