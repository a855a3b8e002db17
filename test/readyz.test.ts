import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createRegistry } from "../src/action-registry.ts";
import { loadConfig } from "../src/config.ts";
import { Dispatcher } from "../src/core/dispatcher.ts";
import { createHttpServer } from "../src/http/server.ts";
import { Readiness } from "../src/metrics/readiness.ts";
import { type Service, startService } from "../src/runtime/service.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({ shop: false, dataDir: true });
let service: Service | undefined;

afterAll(async () => {
  await service?.stop();
});

async function get(origin: string, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${origin}${path}`);
  return { status: response.status, body: await response.json() };
}

/** /readyz and /healthz of an HTTP layer whose readiness is the given one. */
async function withServer<T>(readiness: Readiness, healthy: () => Promise<boolean>, body: (origin: string) => Promise<T>): Promise<T> {
  const http = createHttpServer({
    dispatcher: new Dispatcher({ registry: createRegistry(), pool: env.app.pool, config: env.config, log: env.log }),
    log: env.log,
    bodyLimit: env.config.BODY_LIMIT_BYTES,
    healthy,
    ready: () => readiness.check(),
  });
  const origin = await http.listen({ port: 0, host: "127.0.0.1" });
  try {
    return await body(origin);
  } finally {
    await http.close();
  }
}

describe("GET /readyz of the service", () => {
  it("is 200 while the database answers and every migration is applied; stop() turns it not ready first", async () => {
    service = await startService(env.config, env.log, { web: true, worker: false, migrate: false, demo: false });
    const origin = service.url ?? "";
    expect(await get(origin, "/readyz")).toEqual({ status: 200, body: { status: "ready" } });
    expect(await get(origin, "/healthz")).toEqual({ status: 200, body: { status: "ok" } });
    const readiness = service.readiness;
    const stopping = service.stop();
    // Before the listener closes and the pool ends, readiness already says shutting down.
    expect(await readiness.check()).toEqual({ ready: false, reasons: ["shutting_down"] });
    await stopping;
    service = undefined;
  });
});

describe("SHUTDOWN_DRAIN_MS", () => {
  it("keeps serving requests while /readyz answers 503, then closes the listener", async () => {
    const drained = await startService({ ...env.config, SHUTDOWN_DRAIN_MS: 1500 }, env.log, { web: true, worker: false, migrate: false, demo: false });
    const origin = drained.url ?? "";
    const started = Date.now();
    const stopping = drained.stop();
    // During the drain: not ready, still answering.
    expect(await get(origin, "/readyz")).toEqual({ status: 503, body: { status: "not_ready", reasons: ["shutting_down"] } });
    expect(await get(origin, "/healthz")).toEqual({ status: 200, body: { status: "ok" } });
    await stopping;
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    await expect(fetch(`${origin}/healthz`)).rejects.toThrow();
  });

  it("does not hold the worker back: it stops taking jobs at once, its heartbeat gone while HTTP still drains", async () => {
    const both = await startService({ ...env.config, SHUTDOWN_DRAIN_MS: 4000 }, env.log, { web: true, worker: true, migrate: false, demo: false });
    const origin = both.url ?? "";
    const beats = async () => (await env.app.pool.query("select 1 from worker_heartbeats where pid = $1", [process.pid])).rowCount ?? 0;
    await waitFor("the worker's first heartbeat", async () => ((await beats()) > 0 ? true : undefined));
    const stopping = both.stop();
    await waitFor("the worker to stop", async () => ((await beats()) === 0 ? true : undefined), 3000);
    // Still draining: HTTP answers, not ready.
    expect(await get(origin, "/healthz")).toEqual({ status: 200, body: { status: "ok" } });
    expect((await get(origin, "/readyz")).status).toBe(503);
    await stopping;
  });

  it("must be less than SHUTDOWN_TIMEOUT_MS", () => {
    expect(() => loadConfig({ ...process.env, SHUTDOWN_DRAIN_MS: "30000", SHUTDOWN_TIMEOUT_MS: "30000" })).toThrow(/SHUTDOWN_DRAIN_MS/);
  });
});

describe("GET /readyz", () => {
  it("answers 503 with shutting_down while the process stops, /healthz stays 200 (liveness)", async () => {
    const readiness = new Readiness(env.app.pool);
    await withServer(readiness, async () => true, async (origin) => {
      expect((await get(origin, "/readyz")).status).toBe(200);
      readiness.stopping();
      expect(await get(origin, "/readyz")).toEqual({ status: 503, body: { status: "not_ready", reasons: ["shutting_down"] } });
      expect(await get(origin, "/healthz")).toEqual({ status: 200, body: { status: "ok" } });
    });
  });

  it("answers 503 with migrations when a sql/ file is not recorded in app_migrations", async () => {
    const { rows } = await env.app.pool.query<{ id: number; name: string }>("select id, name from app_migrations order by id desc limit 1");
    const last = rows[0];
    expect(last).toBeDefined();
    await env.app.pool.query("delete from app_migrations where id = $1", [last?.id]);
    try {
      await withServer(new Readiness(env.app.pool), async () => true, async (origin) => {
        expect(await get(origin, "/readyz")).toEqual({ status: 503, body: { status: "not_ready", reasons: ["migrations"] } });
      });
    } finally {
      await env.app.pool.query("insert into app_migrations (id, name) values ($1, $2)", [last?.id, last?.name]);
    }
    await withServer(new Readiness(env.app.pool), async () => true, async (origin) => {
      expect((await get(origin, "/readyz")).status).toBe(200);
    });
  });

  it("answers 503 with database when the database does not answer", async () => {
    // Nothing listens on port 1: every connection is refused.
    const down = new pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:1/postgres", connectionTimeoutMillis: 2_000 });
    down.on("error", () => undefined);
    try {
      await withServer(new Readiness(down), async () => false, async (origin) => {
        expect(await get(origin, "/readyz")).toEqual({ status: 503, body: { status: "not_ready", reasons: ["database"] } });
        expect((await get(origin, "/healthz")).status).toBe(503);
      });
    } finally {
      await down.end();
    }
  });
});
