import { afterEach, describe, expect, it, vi } from "vitest";
import { hashApiKey } from "../src/db/api-keys.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

// A budget of 3 points an hour: a few protocol calls exhaust it.
const env = useTestEnv({ config: { RATE_LIMIT_POINTS: "3", RATE_LIMIT_WINDOW_SECONDS: "3600" } });

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1.0.0" } },
};
const TOOLS_LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function post(key: string, body: unknown, query = ""): Promise<Answer> {
  const response = await fetch(`${env.app.origin}/api/v2/external/mcp${query}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-auth-token": key },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function charged(key: string): Promise<number> {
  const { rows } = await env.pool.query<{ points: number }>(
    "select coalesce(sum(w.points), 0)::int as points from rate_limit_windows w join api_keys k on k.id = w.key_id where k.key_hash = $1",
    [hashApiKey(key)],
  );
  return rows[0]?.points ?? 0;
}

/** Sends `body` until an answer is 429 (at most `max` times): the answers in order. */
async function untilRefused(key: string, body: unknown, max: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  while (answers.length < max && answers.at(-1)?.status !== 429) answers.push(await post(key, body));
  return answers;
}

describe("MCP protocol calls are charged to the key's budget", () => {
  for (const [method, body] of [
    ["initialize", INITIALIZE],
    ["tools/list", TOOLS_LIST],
  ] as const) {
    it(`charges ${method} a read point; once the budget is spent it answers 429 with Retry-After`, async () => {
      const { apiKey } = await createShopWithKey(env.pool, `MCP ${method} Shop`);
      const answers = await untilRefused(apiKey, body, 8);
      expect(answers[0]?.status).toBe(200);
      expect(answers[0]?.headers.get("x-ratelimit-limit")).toBe("3");
      expect(await charged(apiKey)).toBe(answers.length);
      const refused = answers.at(-1);
      expect(refused?.status).toBe(429);
      expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(JSON.parse(refused?.text ?? "")).toEqual({ errors: ["Rate limit exceeded"] });
    });
  }
});

describe("JSON-RPC batches", () => {
  it("refuses a batch with one small JSON-RPC error, charged one point, instead of answering each message", async () => {
    const { apiKey } = await createShopWithKey(env.pool, "MCP Batch Shop");
    const batch = Array.from({ length: 64 }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/list" }));
    expect(JSON.stringify(batch).length).toBeGreaterThan(2_500);
    const answer = await post(apiKey, batch, "?toolsets=all");
    expect(answer.status).toBe(400);
    expect(answer.text.length).toBeLessThan(300);
    expect(JSON.parse(answer.text)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid Request: batches are not supported, send one JSON-RPC message per request" },
    });
    expect(await charged(apiKey)).toBe(1);
  });
});

describe("tools/list", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("answers the full list serialised once per process", async () => {
    const { apiKey } = await createShopWithKey(env.pool, "MCP List Shop");
    // Counts every serialisation of the whole tool list, wherever it happens in this process.
    const stringify = vi.spyOn(JSON, "stringify");
    const listings = () =>
      stringify.mock.calls.filter(([value]) => {
        const v = value as { tools?: unknown[]; result?: { tools?: unknown[] } } | null;
        return (v?.tools?.length ?? v?.result?.tools?.length ?? 0) > 100;
      }).length;
    const first = await post(apiKey, TOOLS_LIST, "?toolsets=all");
    const second = await post(apiKey, { ...TOOLS_LIST, id: "two" }, "?toolsets=all");
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(listings()).toBeLessThanOrEqual(1);
    const one = JSON.parse(first.text) as { jsonrpc: string; id: unknown; result: { tools: { name: string }[] } };
    const two = JSON.parse(second.text) as typeof one;
    expect(one).toMatchObject({ jsonrpc: "2.0", id: 2 });
    expect(two).toMatchObject({ jsonrpc: "2.0", id: "two" });
    expect(two.result).toEqual(one.result);
    expect(one.result.tools.length).toBeGreaterThan(100);
    expect(first.headers.get("content-type")).toMatch(/^application\/json/);
  });
});

describe("GET and DELETE", () => {
  it("answer 405 at once instead of holding an SSE stream open that a stateless server never writes to", async () => {
    const { apiKey } = await createShopWithKey(env.pool, "MCP Stream Shop");
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${env.app.origin}/api/v2/external/mcp`, { method, headers: { accept: "text/event-stream", "x-auth-token": apiKey } });
      const status = response.status;
      await response.body?.cancel();
      expect(status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
    expect(await charged(apiKey)).toBe(0);
  });
});
