import { randomUUID } from "node:crypto";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { AnyAction } from "../core/action.ts";
import type { Dispatcher } from "../core/dispatcher.ts";
import { isDatabaseUnavailable } from "../core/database-unavailable.ts";
import { HTTP_STATUS, MESSAGES, databaseUnavailable } from "../core/errors.ts";
import { V2_BASE_PATH } from "../core/manifest.ts";
import type { Log } from "../logger.ts";
import type { PlatformRuntime } from "../platform/runtime.ts";
import { publicDocuments } from "../docs/documents.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../config.ts";
import { loginClient } from "../ops/login-limit.ts";
import { AuthThrottle } from "./auth-throttle.ts";
import { cachedFor } from "./cached.ts";
import { clientErrorHandler } from "./client-errors.ts";
import { mountMcp } from "./mcp.ts";
import { type OAuthRouteOptions, oauthRoutes } from "./oauth.ts";
import { storefrontRoutes } from "./storefront.ts";
import { widgetRoutes } from "./storefront-widget.ts";
import { unsubscribeRoutes } from "./unsubscribe.ts";
import { type TwilioStatusOptions, twilioStatusRoutes } from "./twilio-status.ts";
import { type WebhookRouteOptions, webhookRoutes } from "./webhooks.ts";
import { requestToken } from "./token.ts";
import { V1_BASE_PATH, mountV1, v1Errors } from "./v1.ts";
import { type OpsOptions, opsRoutes } from "../ops/routes.ts";

interface HttpDeps {
  dispatcher: Dispatcher;
  /** The registry's actions, served as MCP tools at the v2 base's /mcp. */
  actions?: readonly AnyAction[];
  /** Platform webhooks: verified with `secret`, recorded through `pool`. */
  webhooks?: WebhookRouteOptions;
  /** The platform runtime (on first use): the storefront's signup endpoint reads the signed-in customer with it (decision 0214). */
  platform?: () => Promise<PlatformRuntime>;
  /** Text-message status callbacks (POST /webhooks/twilio/status), when Twilio is configured. */
  twilioStatus?: TwilioStatusOptions;
  log: Log;
  bodyLimit: number;
  /** A request (headers and body) not received in full within this is answered 408 and its connection closed. */
  requestTimeoutMs?: number;
  /** The proxies (addresses or CIDRs) whose X-Forwarded-For names the client (TRUST_PROXY); none by default. */
  trustProxy?: string[];
  /** The app's install on a store (/auth, /auth/callback, /auth/token-exchange), when given. */
  oauth?: OAuthRouteOptions;
  /** The operator console at /ops (src/ops), when given. */
  ops?: OpsOptions;
  /** PUBLIC_URL: openapi.json's server URL; absent: the origin each request reached. */
  publicUrl?: string;
  /** Answers whether the database is reachable, for /healthz. */
  healthy: () => Promise<boolean>;
  /** GET /readyz: 200 only when ready (database, migrations, not shutting down); absent: /readyz answers as /healthz. */
  ready?: () => Promise<{ ready: boolean; reasons: string[] }>;
  /** GET /metrics: the process's Prometheus exposition; absent: no /metrics route. */
  metrics?: () => Promise<{ contentType: string; text: string }>;
  /** How long one collection of /metrics answers every scrape (default METRICS_CACHE_MS); 0: each scrape collects. */
  metricsCacheMs?: number;
  /** Failed authentications counted per client address (default: 60 a minute, see auth-throttle.ts). */
  authThrottle?: AuthThrottle;
  /**
   * The storefront's clock (ms since the epoch, tests): its signup limit counts its windows by it.
   * Absent: the database's. (App-proxy timestamps are checked by Shopify's library, on the process clock.)
   */
  storefrontNow?: () => number;
}

/** A flood of scrapes costs one collection per this time; Prometheus scrapes every 15 s or more. */
export const METRICS_CACHE_MS = 1_000;

/** The documents served without a key under the v2 base. */
const PUBLIC_DOCUMENTS = ["llms.txt", "skill.md", "openapi.json"].map((name) => `${V2_BASE_PATH}/${name}`);

/** Whether a path is answered only with an API key (v2 and MCP, v1): those count failed authentications. */
function needsKey(path: string): boolean {
  const under = (base: string) => path === base || path.startsWith(`${base}/`);
  return (under(V2_BASE_PATH) || under(V1_BASE_PATH)) && !PUBLIC_DOCUMENTS.includes(path.replace(/\/+$/, ""));
}

/** The thin HTTP layer: normalises a request, hands it to the dispatcher, writes the answer. */
export function createHttpServer(deps: HttpDeps): FastifyInstance {
  const requestTimeout = deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const app = Fastify({
    // Widened so the instance has fastify's default logger type, which callers and plugins expect.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    loggerInstance: deps.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimit,
    // request.ip (the ops login's limit is per address) is the socket's unless it is a trusted proxy.
    trustProxy: deps.trustProxy && deps.trustProxy.length > 0 ? deps.trustProxy : false,
    // fastify turns node's request timeout off: a client trickling its body would hold a connection for good.
    requestTimeout,
    // node checks for expired requests on an interval (30 s by default, too coarse for a short timeout), and
    // enforces requestTimeout only while headersTimeout is at most it (node's default, 60 s, is not).
    http: { connectionsCheckingInterval: Math.min(1_000, requestTimeout), headersTimeout: Math.min(60_000, requestTimeout) },
    // Timeouts and malformed or oversized requests are answered in the v2 envelope too.
    clientErrorHandler,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && /^[A-Za-z0-9._-]{1,100}$/.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    // Errors raised before routing (a path that is not valid percent-encoding) keep the v2 envelope too.
    frameworkErrors: (error, request, reply) => {
      const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
      const path = (request.raw.url ?? "").split("?")[0] ?? "";
      void (reply as FastifyReply).code(status).header("x-request-id", request.id).send({ errors: [`Request path is not a valid URL: ${path}`] });
    },
  });

  // The dispatcher parses JSON itself, after authentication, so every content type arrives as text.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_req, body, done) => done(null, body));

  // Every answer names its request, the errors fastify raises before any route included.
  app.addHook("onRequest", (request, reply, done) => {
    void reply.header("x-request-id", request.id);
    done();
  });

  // An address that sent too many missing or wrong keys has its bad-key attempts refused: a flood
  // of them costs no database work for a missing key or one already answered 401, and one lookup
  // for any other. A live key is served under its own budget however throttled its address is:
  // behind a NAT or a proxy not named in TRUST_PROXY, one client's bad keys must not lock the
  // others out (decision 0252).
  const throttle = deps.authThrottle ?? new AuthThrottle();
  app.addHook("onRequest", async (request, reply) => {
    const path = request.url.split("?")[0] ?? "";
    const waitSeconds = needsKey(path) ? throttle.refusedFor(loginClient(request.ip)) : undefined;
    if (waitSeconds === undefined) return;
    const token = requestToken(request);
    if (token !== undefined && !throttle.knownWrong(token) && (await deps.dispatcher.authenticate(token))) return;
    if (token !== undefined) throttle.fail(loginClient(request.ip), token);
    const body = { errors: [MESSAGES.rateLimited] };
    return reply
      .code(429)
      .header("retry-after", String(waitSeconds))
      .send(path.startsWith(V1_BASE_PATH) ? v1Errors(429, body, []) : body);
  });
  app.addHook("onSend", (request, reply, payload, done) => {
    if (reply.statusCode === 401 && needsKey(request.url.split("?")[0] ?? "")) throttle.fail(loginClient(request.ip), requestToken(request));
    done(null, payload);
  });

  app.setErrorHandler((error: { code?: string; statusCode?: number }, request, reply) => {
    if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      return reply.code(413).send({ errors: [MESSAGES.bodyTooLarge(deps.bodyLimit)] });
    }
    if (error.statusCode && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ errors: [String((error as Error).message)] });
    }
    // Every route outside the dispatcher (storefront, webhooks intake: Shopify retries a non-2xx, MCP sessions, the console).
    if (isDatabaseUnavailable(error)) {
      const unavailable = databaseUnavailable();
      return reply.code(HTTP_STATUS[unavailable.code]).headers(unavailable.headers).send({ errors: unavailable.messages });
    }
    request.log.error({ err: error, requestId: request.id }, "unhandled HTTP error");
    return reply.code(500).send({ errors: [MESSAGES.internal(request.id)] });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ errors: [`No route for ${request.method} ${request.url.split("?")[0] ?? ""}`] }),
  );

  app.get("/healthz", async (_request, reply) => {
    const ok = await deps.healthy().catch(() => false);
    return reply.code(ok ? 200 : 503).send({ status: ok ? "ok" : "unavailable" });
  });

  app.get("/readyz", async (_request, reply) => {
    const ready = deps.ready ?? (async () => ((await deps.healthy().catch(() => false)) ? { ready: true, reasons: [] } : { ready: false, reasons: ["database"] }));
    const report = await ready().catch(() => ({ ready: false, reasons: ["database"] }));
    return reply.code(report.ready ? 200 : 503).send(report.ready ? { status: "ready" } : { status: "not_ready", reasons: report.reasons });
  });

  // Open on the listener like /healthz: its labels carry no shop, key or path (see src/metrics).
  const metrics = deps.metrics ? cachedFor(deps.metricsCacheMs ?? METRICS_CACHE_MS, deps.metrics) : undefined;
  if (metrics) {
    app.get("/metrics", async (_request, reply) => {
      const { contentType, text } = await metrics();
      return reply.type(contentType).send(text);
    });
  }

  const v2 = async (request: FastifyRequest, reply: FastifyReply) => {
    const url = request.url.split("?")[0] ?? "";
    const path = url.slice(V2_BASE_PATH.length) || "/";
    const result = await deps.dispatcher.dispatch({
      method: request.method,
      path,
      token: requestToken(request),
      query: (request.query ?? {}) as Record<string, unknown>,
      body: { raw: typeof request.body === "string" ? request.body : undefined },
      requestId: request.id,
    });
    return reply.code(result.status).headers(result.headers).send(result.body);
  };
  if (deps.webhooks) void app.register(webhookRoutes, deps.webhooks);
  // Signed back-in-stock unsubscribe links (no API key): signed with the same platform secret.
  if (deps.webhooks) void app.register(unsubscribeRoutes, deps.webhooks);
  // The storefront's endpoints behind the platform's app proxy (no API key): signed with the same secret.
  if (deps.webhooks) {
    const { pool, secret } = deps.webhooks;
    void app.register(storefrontRoutes, { pool, secret, dispatcher: deps.dispatcher, now: deps.storefrontNow, ...(deps.platform ? { platform: deps.platform } : {}) });
  }
  // The storefront widget's script (public: a theme's script tag carries no key nor signature).
  void app.register(widgetRoutes, {});
  if (deps.twilioStatus) void app.register(twilioStatusRoutes, deps.twilioStatus);
  if (deps.oauth) void app.register(oauthRoutes, deps.oauth);
  if (deps.ops) void app.register(opsRoutes, deps.ops);
  if (deps.actions) {
    const actions = deps.actions;
    mountMcp(app, deps.dispatcher, actions);
    // Public documents for people and AI agents, rendered once per process from the registry.
    const documents = publicDocuments(actions);
    app.get(`${V2_BASE_PATH}/llms.txt`, (_request, reply) => reply.type("text/plain; charset=utf-8").send(documents.llms()));
    app.get(`${V2_BASE_PATH}/skill.md`, (_request, reply) => reply.type("text/markdown; charset=utf-8").send(documents.skill()));
    // Its servers URL is absolute: PUBLIC_URL when set, else the origin the request reached.
    app.get(`${V2_BASE_PATH}/openapi.json`, (request, reply) =>
      reply.type("application/json").send(documents.openapi(deps.publicUrl ?? `${request.protocol}://${request.host}`)),
    );
  }
  mountV1(app, deps.dispatcher);
  app.route({ method: ["GET", "POST", "PATCH", "PUT", "DELETE"], url: `${V2_BASE_PATH}`, handler: v2 });
  app.route({ method: ["GET", "POST", "PATCH", "PUT", "DELETE"], url: `${V2_BASE_PATH}/*`, handler: v2 });
  return app;
}
