import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Runner } from "graphile-worker";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { syncCatalog } from "../../src/catalog/sync.ts";
import { type Channels, createChannels } from "../../src/channels/index.ts";
import type { Config } from "../../src/config.ts";
import type { AnyAction } from "../../src/core/action.ts";
import { type Log, createLogger } from "../../src/logger.ts";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../src/platform/emulator/index.ts";
import { PlatformRuntime } from "../../src/platform/runtime.ts";
import { startWorker } from "../../src/runtime/worker.ts";
import { type TestApp, createShopWithKey, startTestApp, testConfig } from "./app.ts";
import { type TestDatabase, createEmptyDatabase, createTestDatabase } from "./db.ts";
import { TEST_WEBHOOK_SECRET } from "./platform.ts";
import { type SmtpSink, startSmtpSink } from "./smtp-sink.ts";

/**
 * The one setup of the test files: a database of their own and, as asked, the real HTTP app, a
 * shop with a key, an SMTP sink, a temporary DATA_DIR, the platform emulator (connected, its
 * catalog mirrored) and an in-process worker. `useTestEnv` registers it as the file's (or the
 * describe block's) beforeAll/afterAll; `startTestEnv` is the same for a test that builds its own.
 */
export interface TestEnvOptions {
  /** `template` (default): a clone of the migrated template; `empty`: not migrated. */
  database?: "template" | "empty";
  /** The real HTTP layer (default true); false: the database and `env.pool` only. */
  app?: boolean;
  /** Configuration overrides (the app's, or `env.config` without an app). */
  config?: Record<string, string>;
  /** The app's registry: these actions instead of the service's. */
  actions?: readonly AnyAction[];
  /** The clock the app counts its windows by (rate limit, failed authentications, console logins): see TestAppOptions. */
  now?: () => number;
  log?: Log;
  /** Connections of `env.pool` when there is no app (the app's pool has 5). */
  poolSize?: number;
  /** A shop with an API key: its name, or true for "Test Shop" (the default with an app). */
  shop?: string | boolean;
  /** A local SMTP server; the app's SMTP_URL points at it. */
  smtp?: boolean | { keepRaw?: boolean };
  /** A temporary DATA_DIR (the app's), removed afterwards. */
  dataDir?: boolean;
  /** The store platform emulator; `webhooks: true` signs and posts its webhooks to the app. */
  emulator?: Omit<EmulatorOptions, "webhooks"> & { webhooks?: boolean | { backoffMs?: number } };
  /** The emulator's online store loads the app's widget (`/storefront/widget.js`) and proxies `/apps/preorder` to the app. */
  storefront?: boolean;
  /** Connects the shop to the emulator; `synced`: and mirrors its catalog with a full sync. */
  connect?: boolean | "synced";
  /** Starts the worker during setup (otherwise `env.startWorker()` does, when a test wants it). */
  worker?: boolean | WorkerFixtureOptions;
}

export interface WorkerFixtureOptions {
  /** Size of the worker's own pool (default WORKER_CONCURRENCY x 3 + 5, as the service requires). */
  poolSize?: number;
  /** graphile-worker's poll interval (default 100 ms). */
  pollInterval?: number;
  /** Seconds an offer sync deferred behind a resolution waits (TaskDeps.offerSyncDeferSeconds; default the service's 60). */
  offerSyncDeferSeconds?: number;
}

export interface TestEnv {
  db: TestDatabase;
  /** The app's pool, or the database's own pool without an app. */
  pool: pg.Pool;
  config: Config;
  log: Log;
  app: TestApp;
  shop: { shopId: string; apiKey: string };
  /** The shop's API key and id (`shop`). */
  key: string;
  shopId: string;
  /** The platform runtime of the worker and of the shop's connection; the app shares its secrets key. */
  platform: PlatformRuntime;
  sink: SmtpSink;
  dataDir: string;
  emulator: Emulator;
  /** The running worker (started by `worker` or `startWorker`). */
  worker: Runner;
  /** The worker's own pool (while it runs; `pool` otherwise). */
  workerPool: pg.Pool;
  /** The worker's senders (e-mail through the sink with `smtp`), built on first use. */
  channels: Channels;
  /** Starts the worker if it is not running. */
  startWorker(options?: WorkerFixtureOptions): Promise<void>;
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

type Cleanup = () => Promise<unknown>;

/** What an option did not ask for: reading it is a mistake in the test, said plainly. */
function asked<T>(value: T | undefined, what: string, option: string): T {
  if (value === undefined) throw new Error(`the test env has no ${what}: pass ${option} to useTestEnv/startTestEnv`);
  return value;
}

function quietPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  // Dropping a test database ends its sessions: that must not surface as an unhandled error.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

export async function startTestEnv(options: TestEnvOptions = {}): Promise<TestEnv> {
  const withApp = options.app ?? true;
  // Undone in reverse order by close(), or at once when setup fails half way.
  const cleanups: Cleanup[] = [];
  const undo = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const sink = options.smtp ? await startSmtpSink(options.smtp === true ? {} : options.smtp) : undefined;
    if (sink) cleanups.push(() => sink.close());
    const db = options.database === "empty" ? await createEmptyDatabase() : await createTestDatabase();
    cleanups.push(() => db.drop());
    const dataDir = options.dataDir ? await mkdtemp(path.join(os.tmpdir(), "test-env-")) : undefined;
    if (dataDir) cleanups.push(() => rm(dataDir, { recursive: true, force: true }));

    // One secrets key for the app and the platform runtime, so both open the same stored tokens.
    const secretsKey = randomBytes(32);
    const overrides: Record<string, string> = {
      SECRETS_KEY: secretsKey.toString("base64"),
      PLATFORM_API_SECRET: TEST_WEBHOOK_SECRET,
      ...(sink ? { SMTP_URL: sink.url } : {}),
      ...(dataDir ? { DATA_DIR: dataDir } : {}),
      ...options.config,
    };
    const platform = new PlatformRuntime({ secretsKey, webhookSecret: TEST_WEBHOOK_SECRET, timeoutMs: 5_000, log: createLogger("silent") });
    let app: TestApp | undefined;
    let pool: pg.Pool;
    let config: Config;
    let log: Log;
    if (withApp) {
      const started = await startTestApp(db.url, overrides, {
        platform,
        ...(options.actions ? { actions: options.actions } : {}),
        ...(options.log ? { log: options.log } : {}),
        ...(options.now ? { now: options.now } : {}),
      });
      app = started;
      cleanups.push(() => started.close());
      ({ pool, config, log } = started);
    } else {
      const own = quietPool(db.url, options.poolSize ?? 4);
      cleanups.push(() => own.end());
      pool = own;
      config = testConfig(db.url, overrides);
      log = options.log ?? createLogger(config.LOG_LEVEL);
    }
    let channels: Channels | undefined;
    const channelsNow = () => (channels ??= createChannels(config, log));
    // Closed after the worker stops (cleanups run in reverse).
    cleanups.push(async () => channels?.close());

    let emulator: Emulator | undefined;
    if (options.emulator) {
      const { webhooks, ...emulatorOptions } = options.emulator;
      const target = webhooks ? { url: `${asked(app, "app", "app: true").origin}/webhooks/platform`, secret: TEST_WEBHOOK_SECRET } : undefined;
      const appOrigin = options.storefront ? asked(app, "app", "app: true").origin : undefined;
      const started = await startEmulator({
        ...emulatorOptions,
        ...(target ? { webhooks: { ...target, ...(webhooks === true ? {} : webhooks) } } : {}),
        ...(appOrigin ? { storefront: { appEmbedUrl: `${appOrigin}/storefront/widget.js`, appProxy: { url: `${appOrigin}/storefront`, secret: TEST_WEBHOOK_SECRET } } } : {}),
      });
      emulator = started;
      cleanups.push(() => started.close());
    }

    const shopName = options.shop ?? withApp;
    const shop = shopName === false ? undefined : await createShopWithKey(pool, shopName === true ? undefined : shopName);
    if (options.connect) {
      const e = asked(emulator, "emulator", "emulator");
      const shopId = asked(shop, "shop", "shop").shopId;
      await platform.connect(pool, shopId, { domain: e.shopDomain, graphqlUrl: e.graphqlUrl, accessToken: e.accessToken });
      if (options.connect === "synced") await syncCatalog({ pool, client: await platform.clientFor(pool, shopId), shopId, mode: "full", log });
    }

    let runner: Runner | undefined;
    let runnerPool: pg.Pool | undefined;
    const stopWorker = async () => {
      const [current, own] = [runner, runnerPool];
      runner = runnerPool = undefined;
      await current?.stop();
      await own?.end();
    };
    const startWorkerNow = async (workerOptions: WorkerFixtureOptions = {}) => {
      if (runner) return;
      // Its own pool, sized as the service's configuration requires (WORKER_CONCURRENCY x 3 + 5): a
      // job may hold a transaction's connection and take another (progress, enqueue), so five
      // jobs on the app's 5 connections could wait on each other forever.
      runnerPool = quietPool(db.url, workerOptions.poolSize ?? config.WORKER_CONCURRENCY * 3 + 5);
      const deferral = workerOptions.offerSyncDeferSeconds === undefined ? {} : { offerSyncDeferSeconds: workerOptions.offerSyncDeferSeconds };
      runner = await startWorker({ pool: runnerPool, log, config, platform, channels: channelsNow(), ...deferral }, { pollInterval: workerOptions.pollInterval ?? 100, cron: false });
    };
    cleanups.push(stopWorker);
    if (options.worker) await startWorkerNow(options.worker === true ? {} : options.worker);

    const env: TestEnv = {
      db,
      pool,
      config,
      log,
      platform,
      get app() {
        return asked(app, "app", "app: true");
      },
      get shop() {
        return asked(shop, "shop", "shop");
      },
      get key() {
        return asked(shop, "shop", "shop").apiKey;
      },
      get shopId() {
        return asked(shop, "shop", "shop").shopId;
      },
      get sink() {
        return asked(sink, "SMTP sink", "smtp");
      },
      get dataDir() {
        return asked(dataDir, "DATA_DIR", "dataDir");
      },
      get emulator() {
        return asked(emulator, "emulator", "emulator");
      },
      get worker() {
        return asked(runner, "running worker", "worker (or call startWorker)");
      },
      get workerPool() {
        return runnerPool ?? pool;
      },
      get channels() {
        return channelsNow();
      },
      startWorker: startWorkerNow,
      stopWorker,
      close: undo,
    };
    return env;
  } catch (error) {
    await undo();
    throw error;
  }
}

/**
 * The env of the enclosing file or describe block: set up in its beforeAll, closed in its afterAll
 * (after the block's own afterAll hooks, which run in reverse order). Read its fields inside hooks
 * and tests only.
 */
export function useTestEnv(options: TestEnvOptions = {}): TestEnv {
  let current: TestEnv | undefined;
  beforeAll(async () => {
    current = await startTestEnv(options);
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  return new Proxy({} as TestEnv, {
    get(_, field) {
      if (!current) throw new Error(`test env read before its beforeAll ran (${String(field)})`);
      return Reflect.get(current, field, current) as unknown;
    },
  });
}
