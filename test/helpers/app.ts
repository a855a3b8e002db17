import { randomBytes, randomUUID } from "node:crypto";
import querystring from "node:querystring";
import { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { createRegistry } from "../../src/action-registry.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import type { AnyAction } from "../../src/core/action.ts";
import { Dispatcher } from "../../src/core/dispatcher.ts";
import { Registry } from "../../src/core/registry.ts";
import { createApiKey, createShop } from "../../src/db/api-keys.ts";
import { AuthThrottle } from "../../src/http/auth-throttle.ts";
import { createHttpServer } from "../../src/http/server.ts";
import { type Log, createLogger } from "../../src/logger.ts";
import type { Shopify } from "@shopify/shopify-api";
import { createShopifyApp } from "../../src/platform/oauth/app.ts";
import type { PlatformRuntime } from "../../src/platform/runtime.ts";
import { createServices } from "../../src/runtime/services.ts";
import { TEST_WEBHOOK_SECRET } from "./platform.ts";

export interface TestApp {
  /** http://127.0.0.1:PORT */
  origin: string;
  pool: pg.Pool;
  config: Config;
  log: Log;
  http: FastifyInstance;
  /** The core the HTTP layer calls: what `invoke` runs actions through, without a request on the wire. */
  dispatcher: Dispatcher;
  close(): Promise<void>;
}

export function testConfig(databaseUrl: string, overrides: Record<string, string> = {}): Config {
  return loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent", PORT: "0", CHECK_RESPONSES: "true", ...overrides });
}

export interface TestAppOptions {
  actions?: readonly AnyAction[];
  log?: Log;
  platform?: PlatformRuntime;
  /**
   * The clock (ms since the epoch) the app counts its windows by: the API's rate limit, failed
   * authentications per address, the console's login attempts, the storefront's signups per address
   * (a TestClock's `now`, helpers/clock.ts; app-proxy timestamps are checked on the process clock).
   * Absent: the service's own (the database's clock; the wall clock for failed authentications).
   */
  now?: () => number;
  /** The install routes (/auth, /auth/callback, /auth/token-exchange) with this client id, connecting through `platform`; the app's own origin is APP_URL. */
  oauth?: { apiKey: string; platform: PlatformRuntime };
}

/**
 * The real HTTP layer on a real port, over the given database: the service's registry, or the
 * test's own actions.
 */
export async function startTestApp(databaseUrl: string, overrides: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(databaseUrl, overrides);
  const log = options.log ?? createLogger(config.LOG_LEVEL);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 5 });
  // Dropping a test database ends its sessions: that must not surface as an unhandled error.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  // Without a platform runtime given, the one the service would build from this configuration (on first use).
  const services = createServices(config, log, options.platform ? { platform: options.platform } : {});
  const registry = options.actions ? new Registry(options.actions) : createRegistry();
  const dispatcher = new Dispatcher({ registry, pool, config, log, services, ...(options.now ? { now: options.now } : {}) });
  let shopify: Shopify | undefined;
  const oauth = options.oauth
    ? {
        pool,
        platform: options.oauth.platform,
        secret: TEST_WEBHOOK_SECRET,
        log,
        shopify: () => {
          if (!shopify) throw new Error("not listening yet");
          return shopify;
        },
      }
    : undefined;
  const http = createHttpServer({
    dispatcher,
    actions: registry.actions,
    webhooks: { pool, secret: TEST_WEBHOOK_SECRET, maxAgeSeconds: config.WEBHOOK_MAX_AGE_SECONDS },
    platform: () => services.platform(),
    log,
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    healthy: async () => true,
    // The operator console (/ops): its token from OPERATOR_TOKEN, else a random one no test knows.
    ops: { pool, token: config.OPERATOR_TOKEN ?? randomBytes(24).toString("base64url"), secureCookies: false, now: options.now },
    ...(oauth ? { oauth } : {}),
    ...(options.now ? { authThrottle: new AuthThrottle({ now: options.now }), storefrontNow: options.now } : {}),
  });
  const origin = await http.listen({ port: 0, host: "127.0.0.1" });
  if (options.oauth) shopify = createShopifyApp({ apiKey: options.oauth.apiKey, apiSecret: TEST_WEBHOOK_SECRET, appUrl: origin }, log);
  return {
    origin,
    pool,
    config,
    log,
    http,
    dispatcher,
    async close() {
      await http.close();
      await services.close();
      await pool.end();
    },
  };
}

export async function createShopWithKey(pool: pg.Pool, name = "Test Shop"): Promise<{ shopId: string; apiKey: string }> {
  const shopId = await createShop(pool, name);
  const { apiKey } = await createApiKey(pool, shopId);
  return { shopId, apiKey };
}

export interface ApiAnswer {
  status: number;
  body: unknown;
  headers: Headers;
}

/** A v2 call over real HTTP: path relative to /api/v2/external. */
export async function api(
  app: { origin: string },
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers["x-auth-token"] = options.key;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const response = await fetch(`${app.origin}/api/v2/external${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

async function bodyText(body: unknown): Promise<string> {
  if (Buffer.isBuffer(body)) return body.toString("utf8");
  if (body instanceof Readable) {
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    return Buffer.concat(chunks).toString("utf8");
  }
  return String(body);
}

/**
 * A v2 call through the dispatcher, as the HTTP layer makes it but with no request on the wire
 * (tRPC's createCaller): the same authentication, rate limit, validation, transaction and answer,
 * its body in its wire form (JSON parsed back, or the text of a file). For domain tests; the
 * transports' own tests use `api`.
 */
export async function invoke(
  app: { dispatcher: Dispatcher },
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string } = {},
): Promise<ApiAnswer> {
  const [route = "", search = ""] = path.split("?", 2);
  const result = await app.dispatcher.dispatch({
    method,
    path: route,
    token: options.key,
    query: { ...querystring.parse(search) },
    body: { raw: options.body !== undefined ? JSON.stringify(options.body) : options.rawBody },
    requestId: randomUUID(),
  });
  const headers = new Headers(result.headers);
  if (headers.has("content-type")) return { status: result.status, body: await bodyText(result.body), headers };
  if (result.body !== undefined) headers.set("content-type", "application/json; charset=utf-8");
  const body: unknown = result.body === undefined ? undefined : JSON.parse(JSON.stringify(result.body));
  return { status: result.status, body, headers };
}
