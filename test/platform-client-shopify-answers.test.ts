import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { PlatformClient, type PlatformLogger } from "../src/platform/client.ts";
import { PlatformError } from "../src/platform/errors.ts";

/**
 * The client against the answers a real Shopify store gives, body for body (the emulator's
 * src/platform/emulator/shopify-errors.ts cites where each comes from): what it retries, after
 * how long, and what it gives up on at once.
 */

interface Answer {
  status: number;
  body: unknown;
}

const TOKEN = "shpat_fake_token_for_tests";
const servers: http.Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(async (server) => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }),
  );
});

/** A store that answers the scripted bodies in turn, then `{ data: { shop } }`; counts what it was sent. */
async function store(script: Answer[]): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const answer = script[requests] ?? { status: 200, body: { data: { shop: { id: "gid://shopify/Shop/1" } }, extensions: cost(2, 2, 1998) } };
      requests++;
      const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { "content-type": typeof answer.body === "string" ? "text/plain" : "application/json" }).end(text);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/admin/api/2026-07/graphql.json`, requests: () => requests };
}

function cost(requested: number, actual: number | null, available: number, restoreRate = 100) {
  return { cost: { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: { maximumAvailable: 2000, currentlyAvailable: available, restoreRate } } };
}

function captureLog(): PlatformLogger & { delays: number[] } {
  const delays: number[] = [];
  return { delays, warn: (fields) => delays.push((fields as { delayMs: number }).delayMs) };
}

async function failure(url: string): Promise<PlatformError> {
  const client = new PlatformClient({ graphqlUrl: url, accessToken: TOKEN, minRetryDelayMs: 5, maxRetryDelayMs: 20 });
  const error = await client.request("query Shop { shop { id } }").then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

describe("Shopify's refusals are not retried", () => {
  const refusals: [string, Answer, string, string][] = [
    ["an invalid token (401)", { status: 401, body: { errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" } }, "auth", "[API] Invalid API key or access token"],
    ["a missing scope (403)", { status: 403, body: { errors: "[API] This action requires merchant approval for read_orders scope." } }, "auth", "read_orders"],
    ["a frozen shop (402)", { status: 402, body: { errors: "Unavailable Shop" } }, "shop_unavailable", "Payment Required"],
    ["a locked shop (423)", { status: 423, body: { errors: "This shop is unavailable" } }, "shop_unavailable", "locked"],
    ["an API version Shopify does not serve (404)", { status: 404, body: { errors: "Not Found" } }, "not_found", "API version"],
  ];

  it.each(refusals)("%s", async (_what, answer, kind, says) => {
    const platform = await store([answer]);
    const error = await failure(platform.url);
    expect(error).toMatchObject({ kind, status: answer.status, attempts: 1 });
    expect(error.message).toContain(says);
    expect(error.message).not.toContain(TOKEN);
    expect(platform.requests()).toBe(1);
  });

  it("MAX_COST_EXCEEDED, named by its first line", async () => {
    const message =
      "Query cost is 1729, which exceeds the single query max cost limit (1000).\n\nSee https://shopify.dev/concepts/about-apis/rate-limits for more information on how the\ncost of a query is calculated.\n";
    const body = { errors: [{ message, extensions: { code: "MAX_COST_EXCEEDED", cost: 1729, maxCost: 1000, documentation: "https://shopify.dev/api/usage/limits#rate-limits" } }] };
    const platform = await store([{ status: 200, body }]);
    const error = await failure(platform.url);
    expect(error).toMatchObject({ kind: "graphql", attempts: 1 });
    expect(error.message).toBe("Platform Shop failed: GraphQL errors: Query cost is 1729, which exceeds the single query max cost limit (1000). (MAX_COST_EXCEEDED)");
    expect(platform.requests()).toBe(1);
  });

  it("a validation error, without a cost extension", async () => {
    const body = { errors: [{ message: "Field 'nope' doesn't exist on type 'Shop'", path: ["query Shop", "shop", "nope"], extensions: { code: "undefinedField", typeName: "Shop", fieldName: "nope" } }] };
    const platform = await store([{ status: 200, body }]);
    expect(await failure(platform.url)).toMatchObject({ kind: "graphql", attempts: 1 });
  });
});

describe("what may succeed on another try is retried", () => {
  it("THROTTLED: after the time its cost says the deficit takes to restore", async () => {
    const throttled = { errors: [{ message: "Throttled", extensions: { code: "THROTTLED", documentation: "https://shopify.dev/api/usage/rate-limits" } }], extensions: cost(56, null, 6, 1000) };
    const platform = await store([{ status: 200, body: throttled }]);
    const log = captureLog();
    const client = new PlatformClient({ graphqlUrl: platform.url, accessToken: TOKEN, minRetryDelayMs: 5_000, maxRetryDelayMs: 5_000, log });
    const data = await client.request<{ shop: { id: string } }>("query Shop { shop { id } }");
    expect(data.shop.id).toBe("gid://shopify/Shop/1");
    // (56 − 6) points at 1000 a second: 50 ms, not the 5 s backoff.
    expect(log.delays).toEqual([50]);
    expect(client.stats).toMatchObject({ requests: 2, throttled: 1, retries: 1 });
  });

  it.each([
    ["a 502 with a text body", { status: 502, body: "502 Bad Gateway" }],
    ["a 503 with a text body", { status: 503, body: "503 Service Unavailable" }],
    ["a 500 with an HTML body", { status: 500, body: "<html><body>Internal Server Error</body></html>" }],
    [
      "Shopify's INTERNAL_SERVER_ERROR in a 200",
      { status: 200, body: { errors: [{ message: "Internal error. Looks like something went wrong on our end.\nRequest ID: 1b355a21 (include this in support requests).", extensions: { code: "INTERNAL_SERVER_ERROR", requestId: "1b355a21" } }] } },
    ],
  ] as [string, Answer][])("%s", async (_what, answer) => {
    const platform = await store([answer, answer]);
    const client = new PlatformClient({ graphqlUrl: platform.url, accessToken: TOKEN, minRetryDelayMs: 5, maxRetryDelayMs: 20 });
    const data = await client.request<{ shop: { id: string } }>("query Shop { shop { id } }");
    expect(data.shop.id).toBe("gid://shopify/Shop/1");
    expect(platform.requests()).toBe(3);
  });
});
