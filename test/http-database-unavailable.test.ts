import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRegistry } from "../src/action-registry.ts";
import { createLogger } from "../src/logger.ts";
import { callTool, toolCatalog } from "../src/mcp/tools.ts";
import { startService } from "../src/runtime/service.ts";
import { type TestApp, startTestApp, testConfig } from "./helpers/app.ts";
import { postDelivery, signedDelivery } from "./helpers/webhook-delivery.ts";

/**
 * While the database cannot be reached, every transport says so as a pause: 503 with Retry-After
 * and the error envelope (v2, webhooks intake: Shopify retries a non-2xx), a tool error on MCP,
 * /readyz not ready, /healthz alive. Before: 500 "Internal server error".
 */

let app: TestApp;
let closedPort: number;

beforeAll(async () => {
  // A port nothing listens on: connections are refused, as while PostgreSQL is stopped.
  closedPort = await new Promise<number>((resolve) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
  app = await startTestApp(`postgres://postgres@127.0.0.1:${closedPort}/nowhere`);
});

afterAll(async () => {
  await app.close();
});

function expectUnavailable(answer: { status: number; retryAfter: string | null; body: unknown }): void {
  expect(answer.status).toBe(503);
  expect(Number(answer.retryAfter)).toBeGreaterThan(0);
  expect(answer.body).toEqual({ errors: [expect.stringContaining("temporarily unavailable")] });
}

describe("the database unreachable", () => {
  it("v2 answers 503 with Retry-After and the envelope, not 500", async () => {
    const response = await fetch(`${app.origin}/api/v2/external/back_in_stock/signups`, { headers: { "x-auth-token": "any-key" } });
    expectUnavailable({ status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.json() });
  });

  it("the webhooks intake answers 503 (the platform delivers again)", async () => {
    const delivery = signedDelivery("products/update", { id: 1 }, "outage.myshopify.com");
    const response = await fetch(`${app.origin}/webhooks/platform/${delivery.topic}`, { method: "POST", headers: delivery.headers, body: delivery.body });
    expectUnavailable({ status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.json() });
    expect((await postDelivery(app.origin, delivery)).status).toBe(503);
  });

  it("an MCP tool call is a tool error saying the service is temporarily unavailable", async () => {
    const { byName } = toolCatalog(createRegistry().actions);
    const result = await callTool(app.dispatcher, byName, "any-key", "back_in_stock_settings_get", {});
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("503: The service is temporarily unavailable");
  });

  it("the service's /readyz is not ready (database), its /healthz stays alive", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "db-unavailable-"));
    const service = await startService(testConfig(`postgres://postgres@127.0.0.1:${closedPort}/nowhere`, { DATA_DIR: dataDir }), createLogger("silent"), {
      web: true,
      worker: false,
      migrate: false,
      demo: false,
    });
    try {
      const ready = await fetch(`${service.url ?? ""}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: "not_ready", reasons: ["database"] });
      const healthy = await fetch(`${service.url ?? ""}/healthz`);
      expect(healthy.status).toBe(200);
    } finally {
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
