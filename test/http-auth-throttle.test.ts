import { afterEach, describe, expect, it, vi } from "vitest";
import { AUTH_FAILURES_PER_WINDOW, AuthThrottle } from "../src/http/auth-throttle.ts";
import { type ApiAnswer, api, createShopWithKey, startTestApp } from "./helpers/app.ts";
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
  it("answers the 61st bad-key attempt from one address 429 with Retry-After; a valid key from that address is still served; another address still gets 401", async () => {
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
    // A key already answered 401 in this window, and no key at all, are refused without a lookup.
    expect((await api(env.app, "GET", "/account/languages", from(attacker))).status).toBe(429);
    const v1Wrong = await fetch(`${env.app.origin}/api/v1/external/preorders`, { method: "POST", headers: { "x-forwarded-for": attacker, "x-auth-token": "pbk_wrong" } });
    expect(v1Wrong.status).toBe(429);
    expect(await v1Wrong.json()).toEqual({ errors: { base: ["Rate limit exceeded"] } });
    expect(queries).not.toHaveBeenCalled();
    // A key not seen yet costs one lookup, and is refused when it is not live.
    expect((await api(env.app, "GET", "/account/languages", from(attacker, "pbk_never_seen"))).status).toBe(429);
    expect(queries).toHaveBeenCalledTimes(1);

    // A valid key from the throttled address is served, under its own budget: REST, MCP and v1.
    const read = await api(env.app, "GET", "/account/languages", from(attacker, env.key));
    expect(read.status).toBe(200);
    expect(read.headers.get("x-ratelimit-limit")).not.toBeNull();
    const mcpHeaders = { "x-forwarded-for": attacker, accept: "application/json, text/event-stream" };
    expect((await api(env.app, "POST", "/mcp", { key: env.key, headers: mcpHeaders, body: { jsonrpc: "2.0", id: 1, method: "tools/list" } })).status).toBe(200);
    const v1 = await fetch(`${env.app.origin}/api/v1/external/preorders`, { method: "POST", headers: { "x-forwarded-for": attacker, "x-auth-token": env.key } });
    // The action ran: an empty body is the action's own refusal, not the throttle's.
    expect([400, 422]).toContain(v1.status);
    // The open documents stay open.
    expect((await fetch(`${env.app.origin}/api/v2/external/llms.txt`, { headers: { "x-forwarded-for": attacker } })).status).toBe(200);

    const other = "203.0.113.8";
    expect((await api(env.app, "GET", "/account/languages", from(other, "pbk_wrong"))).status).toBe(401);
    expect((await api(env.app, "GET", "/account/languages", from(other, env.key))).status).toBe(200);
  });

  it("behind a proxy not named in TRUST_PROXY (every request from one address), a flood of bad keys never refuses a valid key's reads", async () => {
    // The service reached from loopback with no trusted proxy: every client shares 127.0.0.1.
    const shared = await startTestApp(env.db.url, {}, { now: clock.now });
    try {
      clock.nextWindow(60);
      const shops = await Promise.all([1, 2, 3].map((n) => createShopWithKey(shared.pool, `Throttle NAT Shop ${n}`)));
      for (let i = 0; i < AUTH_FAILURES_PER_WINDOW + 10; i++) {
        const answer = await api(shared, "GET", "/account/languages", i % 2 === 0 ? { key: `pbk_script_${i}` } : {});
        expect(answer.status).toBe(i < AUTH_FAILURES_PER_WINDOW ? 401 : 429);
      }
      // 43 valid reads from the same address, each between two more bad-key attempts.
      const valid: number[] = [];
      const bad: ApiAnswer[] = [];
      for (let i = 0; i < 43; i++) {
        bad.push(await api(shared, "GET", "/account/languages", { key: `pbk_script_more_${i}` }));
        valid.push((await api(shared, "GET", "/account/languages", { key: shops[i % shops.length]?.apiKey ?? "" })).status);
        bad.push(await api(shared, "GET", "/account/languages", {}));
      }
      const served = valid.filter((status) => status === 200).length;
      expect(`${served} of ${valid.length} valid reads served`).toBe("43 of 43 valid reads served");
      expect(bad.map((answer) => answer.status)).toEqual(bad.map(() => 429));
      for (const answer of bad) expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      // Each valid read was charged to its own key's budget (a read is 1 point), not to the address.
      const { rows } = await shared.pool.query<{ points: number }>(
        "select coalesce(sum(w.points), 0)::int as points from rate_limit_windows w join api_keys k on k.id = w.key_id where k.shop_id = any($1)",
        [shops.map((shop) => shop.shopId)],
      );
      expect(rows[0]?.points).toBe(43);
    } finally {
      await shared.close();
    }
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
