import type { FastifyInstance } from "fastify";
import type { Runner } from "graphile-worker";
import type pg from "pg";
import { enqueueAlertRecovery } from "../back_in_stock/alerts/recovery.ts";
import { enqueueNotificationRecovery } from "../preorders/notifications/recovery.ts";
import { createRegistry } from "../action-registry.ts";
import { connectedShops, enqueueCatalogSync } from "../catalog/schedule.ts";
import { publicUrl } from "../channels/public-url.ts";
import type { Config } from "../config.ts";
import { Dispatcher } from "../core/dispatcher.ts";
import { migrate } from "../db/migrate.ts";
import { observeDispatch } from "../metrics/observe.ts";
import { collectQueueDepth } from "../metrics/queue.ts";
import { Readiness } from "../metrics/readiness.ts";
import { exposition } from "../metrics/registry.ts";
import { serveMetrics } from "../metrics/server.ts";
import { ensureHelpArticles } from "../help_docs/load.ts";
import { createHttpServer } from "../http/server.ts";
import type { Log } from "../logger.ts";
import type { PlatformRuntime } from "../platform/runtime.ts";
import type { Shopify } from "@shopify/shopify-api";
import { createShopifyApp } from "../platform/oauth/app.ts";
import { operatorToken } from "../ops/auth.ts";
import { type Database, createPool, openPool, resolveDatabase } from "./database.ts";
import { hashApiKey } from "../db/api-keys.ts";
import { connectDemoShop, ensureDemoShop, startupLine } from "./demo.ts";
import { createPlatformRuntime } from "./platform.ts";
import { startDemoProviders } from "./providers.ts";
import { type ServiceServices, createServices } from "./services.ts";
import { type WorkerOptions, startWorker } from "./worker.ts";
import { intakeConcurrency, setIntakeConcurrency } from "../webhooks/intake.ts";

interface ServiceOptions {
  web: boolean;
  worker: boolean;
  migrate: boolean;
  /** Create the demo shop on first start and connect it to the platform (or the emulator). */
  demo: boolean;
  worker_options?: WorkerOptions;
  /**
   * Aborted when a stop was asked for during the start: what is started by then (the database,
   * the migrations) finishes, but no listener, worker or demo connection is started after it.
   */
  signal?: AbortSignal;
}

export interface Service {
  pool: pg.Pool;
  database: Database;
  platform: PlatformRuntime;
  /** Built once here, shared by the dispatcher and the worker. */
  services: ServiceServices;
  http?: FastifyInstance;
  runner?: Runner;
  /** The address the HTTP server listens on. */
  url?: string;
  /** /readyz's state: turns not ready first thing in stop(). */
  readiness: Readiness;
  /** A worker-only process's /metrics address (WORKER_METRICS_PORT). */
  metricsUrl?: string;
  /** Settles once the pool has opened its DB_POOL_SIZE connections at start (openPool): how many it opened. */
  poolOpened: Promise<number>;
  stop: () => Promise<void>;
}

/** The demo shop, and DEMO_API_KEY when it is one of its live keys (a key set after the shop was created is not). */
async function liveDemoKey(pool: pg.Pool, demoKey: string | undefined): Promise<{ shopId?: string; apiKey?: string }> {
  const { rows } = await pool.query<{ id: string; live: boolean }>(
    `select s.id, exists (select 1 from api_keys k where k.shop_id = s.id and k.key_hash = $1 and k.revoked_at is null) as live
     from shops s where s.is_demo limit 1`,
    [demoKey === undefined ? null : hashApiKey(demoKey)],
  );
  const shop = rows[0];
  if (!shop) return {};
  return shop.live && demoKey !== undefined ? { shopId: shop.id, apiKey: demoKey } : { shopId: shop.id };
}

/** Where stores and browsers reach the service: APP_URL, else PUBLIC_URL, else where it listens. */
export function appUrl(config: Config, listening: string): string {
  return (config.APP_URL ?? config.PUBLIC_URL ?? listening).replace(/\/+$/, "");
}

export async function startService(config: Config, log: Log, options: ServiceOptions): Promise<Service> {
  const database = await resolveDatabase(config, log);
  const pool = createPool(database.url, config.DB_POOL_SIZE, log, { keepOpen: true });
  // In the background: the start goes on beside it (and without the database, which may be down).
  const poolOpened = openPool(pool, config.DB_POOL_SIZE, log);
  const closers: (() => Promise<void>)[] = [];
  let http: FastifyInstance | undefined;
  let runner: Runner | undefined;
  let url: string | undefined;
  let metricsUrl: string | undefined;
  let storefrontUrl: string | undefined;
  const readiness = new Readiness(pool);
  // Order matters on the way down: /readyz turns 503 so a load balancer drains this process (for
  // SHUTDOWN_DRAIN_MS, requests still served), stop taking requests and jobs, let running ones finish, then the emulator, the pool and the embedded database.
  const stopAll = async () => {
    readiness.stopping();
    // The worker stops taking jobs at once, so its running ones get their whole budget (their
    // abort fires at 80% of SHUTDOWN_TIMEOUT_MS, counted from the signal as the exit timer is),
    // while HTTP drains beside it.
    const stopped = await Promise.allSettled([
      runner?.stop("shutdown"),
      (async () => {
        if (http && config.SHUTDOWN_DRAIN_MS > 0) {
          log.info({ drainMs: config.SHUTDOWN_DRAIN_MS }, "not ready: still serving while the load balancer drains this process");
          await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DRAIN_MS));
        }
        await http?.close();
      })(),
    ]);
    for (const outcome of stopped) if (outcome.status === "rejected") throw outcome.reason;
    for (const close of closers.reverse()) await close();
    await pool.end();
    await database.embedded?.stop();
  };
  // A signal during the start means "no new requests or jobs": starting the worker then would
  // claim jobs that the drain must wait for or abort.
  const wanted = (part: boolean) => part && options.signal?.aborted !== true;
  try {
    if (options.migrate) {
      const applied = await migrate(pool, log);
      if (applied.length > 0) log.info({ applied }, "migrations applied");
    }
    const platform = await createPlatformRuntime(config, log);
    const services = createServices(config, log, { platform });
    // Closed after the worker and HTTP have stopped (closers run after both).
    closers.push(() => services.close());
    const demoKey: { shopId?: string; apiKey?: string } = {};
    if (wanted(options.demo)) {
      const demo = await ensureDemoShop(pool, config.DEMO_API_KEY);
      if (demo) Object.assign(demoKey, demo);
      if (demo) {
        // Printed once, on the start that creates it: the key is stored only as a hash.
        process.stdout.write(`\nDemo shop created: ${demo.shopId}\nDemo API key (shown once): ${demo.apiKey}\n\n`);
      }
    }
    if (wanted(options.web)) {
      setIntakeConcurrency(pool, intakeConcurrency(config.DB_POOL_SIZE, options.worker));
      const registry = createRegistry();
      const dispatcher = new Dispatcher({ registry, pool, config, log, services, observe: observeDispatch });
      const operator = await operatorToken(config.OPERATOR_TOKEN, config.dataDir);
      // Printed once, on the start that generates it (kept under DATA_DIR); never logged.
      if (operator.created) process.stdout.write(`\nOperator console token (shown once; kept in ${config.dataDir}/operator-token): ${operator.token}\n\n`);
      const publicOrigin = new URL(publicUrl(config)).origin;
      // Queue depth is read by the process that serves /metrics on the API's listener (not by a worker-only one: no double count).
      const stopQueueDepth = collectQueueDepth(pool);
      closers.push(() => Promise.resolve(stopQueueDepth()));
      // Built once the service knows its own URL (the OAuth redirect_uri's origin), after listen.
      const oauthApp: { shopify?: Shopify } = {};
      http = createHttpServer({
        dispatcher,
        actions: registry.actions,
        webhooks: { pool, secret: platform.webhookSecret, maxAgeSeconds: config.WEBHOOK_MAX_AGE_SECONDS },
        platform: () => services.platform(),
        twilioStatus: config.TWILIO_AUTH_TOKEN ? { pool, authToken: config.TWILIO_AUTH_TOKEN, publicUrl: publicUrl(config) } : undefined,
        log,
        bodyLimit: config.BODY_LIMIT_BYTES,
        requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
        trustProxy: config.TRUST_PROXY,
        ...(config.PUBLIC_URL ? { publicUrl: config.PUBLIC_URL } : {}),
        // Liveness only: a database outage is no reason to restart this process (it reconnects by
        // itself); /readyz says the database is unreachable.
        healthy: () => Promise.resolve(true),
        ready: () => readiness.check(),
        metrics: exposition,
        oauth: {
          pool,
          platform,
          secret: platform.webhookSecret,
          log,
          shopify: () => {
            if (!oauthApp.shopify) throw new Error("the OAuth routes answered before the service listens");
            return oauthApp.shopify;
          },
        },
        ops: { pool, token: operator.token, secureCookies: publicOrigin.startsWith("https:"), publicOrigin, sendRetryHours: config.SEND_RETRY_HOURS },
      });
      url = await http.listen({ port: config.PORT, host: config.HOST });
      oauthApp.shopify = createShopifyApp({ apiKey: config.SHOPIFY_API_KEY, apiSecret: platform.webhookSecret, appUrl: appUrl(config, url) }, log);
      log.info({ url }, "HTTP API listening");
      // The help articles (docs/help) into help_articles now, so the first search does not wait;
      // GET /account/help_docs also loads them on first use, so a failure here only delays that.
      ensureHelpArticles(pool).catch((error: unknown) => log.warn({ err: error }, "help articles not loaded at start"));
    }
    if (wanted(options.demo)) {
      const connected = await connectDemoShop(pool, platform, config, log, url, url ? appUrl(config, url) : undefined);
      if (connected?.close) closers.push(connected.close);
      storefrontUrl = connected?.storefrontUrl;
      const closeProviders = await startDemoProviders(pool, platform, config, log);
      if (closeProviders) closers.push(closeProviders);
    }
    if (wanted(options.worker)) {
      runner = await startWorker({ pool, log, config, platform, channels: services.channels() }, options.worker_options);
      if (!options.web && config.WORKER_METRICS_PORT !== undefined) {
        const metrics = await serveMetrics(config.WORKER_METRICS_PORT, config.HOST);
        closers.push(metrics.close);
        metricsUrl = metrics.url;
        log.info({ url: metricsUrl }, "worker metrics listening");
      }
      // A shop connected but never mirrored gets its first full sync now.
      for (const shopId of await connectedShops(pool, true)) await enqueueCatalogSync(pool, shopId, "full");
      // What a killed worker left half-sent (claimed alerts, a run's batch) is picked up now, not at the next cron minute.
      await enqueueAlertRecovery(pool);
      // Likewise the preorder notifications it left pending (the cron sweep runs every 5 minutes).
      await enqueueNotificationRecovery(pool);
    }
    if (wanted(options.demo) && url) {
      // Once everything is up: one line saying where everything is (npm start only: the demo runtime).
      if (!demoKey.apiKey) Object.assign(demoKey, await liveDemoKey(pool, config.DEMO_API_KEY));
      process.stdout.write(`\n${startupLine({ service: appUrl(config, url), storefront: storefrontUrl }, demoKey)}\n\n`);
    }
    let stopping: Promise<void> | undefined;
    return { pool, database, platform, services, http, runner, url, readiness, metricsUrl, poolOpened, stop: () => (stopping ??= stopAll()) };
  } catch (error) {
    await stopAll().catch(() => undefined);
    throw error;
  }
}
