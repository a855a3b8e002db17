import { request as httpRequest } from "node:http";
import { describe, expect, it, vi } from "vitest";
import { ACTIONS, createRegistry } from "../src/action-registry.ts";
import { Dispatcher } from "../src/core/dispatcher.ts";
import type * as OpenApiModule from "../src/docs/openapi.ts";
import { openApiDocument } from "../src/docs/openapi.ts";
import { cachedFor } from "../src/http/cached.ts";
import { METRICS_CACHE_MS, createHttpServer } from "../src/http/server.ts";
import { testConfig } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

// Counts the renderings of the OpenAPI document, wherever they happen in this process.
vi.mock("../src/docs/openapi.ts", async (importOriginal) => {
  const original: typeof OpenApiModule = await importOriginal();
  return { ...original, openApiDocument: vi.fn(original.openApiDocument) };
});

const env = useTestEnv({ shop: false });

async function get(path: string): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(`${env.app.origin}/api/v2/external${path}`);
  return { status: response.status, type: response.headers.get("content-type") ?? "", text: await response.text() };
}

describe("public documents rendered from the registry", () => {
  it("serves llms.txt without a key, listing every action", async () => {
    const doc = await get("/llms.txt");
    expect(doc.status).toBe(200);
    expect(doc.type).toMatch(/^text\/plain/);
    for (const action of ACTIONS) expect(doc.text).toContain(`\`${action.method} ${action.path}\` (${action.name},`);
  });

  it("serves skill.md with a front matter naming the skill", async () => {
    const doc = await get("/skill.md");
    expect(doc.status).toBe(200);
    expect(doc.text).toMatch(/^---\nname: preorder-back-in-stock-api\ndescription: .+\n---\n/);
  });

  it("serves an OpenAPI 3.1 document with every action as an operation", async () => {
    const doc = await get("/openapi.json");
    const openapi = JSON.parse(doc.text) as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
    expect(openapi.openapi).toBe("3.1.0");
    for (const action of ACTIONS) {
      expect(openapi.paths[action.path]?.[action.method.toLowerCase()]?.operationId).toBe(action.name);
    }
  });
});

describe("openapi.json's server URL is absolute (Prism and code generators take it as it is)", () => {
  it("names the origin the request reached, with the v2 base path", async () => {
    const doc = JSON.parse((await get("/openapi.json")).text) as { servers: { url: string }[] };
    expect(doc.servers).toEqual([{ url: `${env.app.origin}/api/v2/external` }]);
    // fetch cannot set Host: a plain request names the service as a proxy or a DNS name would.
    const { port } = new URL(env.app.origin);
    const viaName = await new Promise<{ servers: { url: string }[] }>((resolve, reject) => {
      const request = httpRequest({ host: "127.0.0.1", port, path: "/api/v2/external/openapi.json", headers: { host: "api.example.test:8443" } }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as { servers: { url: string }[] }));
        response.on("error", reject);
      });
      request.on("error", reject);
      request.end();
    });
    expect(viaName.servers).toEqual([{ url: "http://api.example.test:8443/api/v2/external" }]);
  });

  it("names PUBLIC_URL when it is set, whatever the request's host", async () => {
    const config = testConfig(env.db.url);
    const http = createHttpServer({
      dispatcher: new Dispatcher({ registry: createRegistry(), pool: env.app.pool, config, log: env.log }),
      actions: ACTIONS,
      log: env.log,
      bodyLimit: config.BODY_LIMIT_BYTES,
      healthy: async () => true,
      publicUrl: "https://preorders.example.com/",
    });
    const origin = await http.listen({ port: 0, host: "127.0.0.1" });
    try {
      const doc = (await (await fetch(`${origin}/api/v2/external/openapi.json`)).json()) as { servers: { url: string }[]; openapi: string };
      expect(doc.openapi).toBe("3.1.0");
      expect(doc.servers).toEqual([{ url: "https://preorders.example.com/api/v2/external" }]);
    } finally {
      await http.close();
    }
  });
});

describe("open routes cost the same however often they are asked", () => {
  async function serve(options: Partial<Parameters<typeof createHttpServer>[0]>): Promise<{ origin: string; close: () => Promise<void> }> {
    const config = testConfig(env.db.url);
    const registry = createRegistry();
    const http = createHttpServer({
      dispatcher: new Dispatcher({ registry, pool: env.app.pool, config, log: env.log }),
      log: env.log,
      bodyLimit: config.BODY_LIMIT_BYTES,
      healthy: async () => true,
      ...options,
    });
    return { origin: await http.listen({ port: 0, host: "127.0.0.1" }), close: () => http.close() };
  }

  it("renders openapi.json once per registry, on its first request, for every server over it", async () => {
    // A registry of its own: the service's actions are rendered already, by the tests above.
    const actions = [...createRegistry().actions];
    const builds = vi.mocked(openApiDocument);
    const before = builds.mock.calls.length;
    const servers = [await serve({ actions }), await serve({ actions })];
    try {
      expect(builds.mock.calls.length - before).toBe(0);
      const texts: string[] = [];
      for (const server of [...servers, ...servers]) texts.push(await (await fetch(`${server.origin}/api/v2/external/openapi.json`)).text());
      expect(builds.mock.calls.length - before).toBe(1);
      // The same document but for its servers URL, which names the origin each request reached.
      const parsed = texts.map((text) => JSON.parse(text) as { servers: { url: string }[] });
      expect(parsed.map((doc) => doc.servers[0]?.url)).toEqual([...servers, ...servers].map((server) => `${server.origin}/api/v2/external`));
      expect(new Set(parsed.map(({ servers: _servers, ...rest }) => JSON.stringify(rest))).size).toBe(1);
    } finally {
      for (const server of servers) await server.close();
    }
  });

  it("answers /metrics from one collection for the cache's time, concurrent scrapes included", async () => {
    let collections = 0;
    const metrics = async () => {
      collections += 1;
      return { contentType: "text/plain; version=0.0.4; charset=utf-8", text: `collections ${collections}\n` };
    };
    const server = await serve({ metrics, metricsCacheMs: 60_000 });
    try {
      const scrape = async () => (await fetch(`${server.origin}/metrics`)).text();
      const answers = await Promise.all(Array.from({ length: 10 }, scrape));
      answers.push(await scrape(), await scrape());
      expect(collections).toBe(1);
      expect(new Set(answers)).toEqual(new Set(["collections 1\n"]));
    } finally {
      await server.close();
    }
  });

  it("collects again once the cache's time is over, and keeps no failed collection", async () => {
    let now = 0;
    let calls = 0;
    const collect = cachedFor(1_000, async () => {
      calls += 1;
      if (calls === 1) throw new Error("scrape failed");
      return calls;
    }, () => now);
    await expect(collect()).rejects.toThrow("scrape failed");
    expect(await collect()).toBe(2);
    now = 999;
    expect(await collect()).toBe(2);
    now = 1_000;
    expect(await collect()).toBe(3);
    expect(METRICS_CACHE_MS).toBeGreaterThan(0);
  });
});
