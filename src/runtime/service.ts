import type { FastifyInstance } from "fastify";
import type { Runner } from "graphile-worker";
import type pg from "pg";
import { createRegistry } from "../actions/index.ts";
import type { Config } from "../config.ts";
import { Dispatcher } from "../core/dispatcher.ts";
import { migrate } from "../db/migrate.ts";
import { createHttpServer } from "../http/server.ts";
import type { Log } from "../logger.ts";
import { type Database, createPool, resolveDatabase } from "./database.ts";
import { ensureDemoShop } from "./demo.ts";
import { type WorkerOptions, startWorker } from "./worker.ts";

export interface ServiceOptions {
  web: boolean;
  worker: boolean;
  migrate: boolean;
  demo: boolean;
  worker_options?: WorkerOptions;
}

export interface Service {
  pool: pg.Pool;
  database: Database;
  http?: FastifyInstance;
  runner?: Runner;
  /** The address the HTTP server listens on. */
  url?: string;
  stop: () => Promise<void>;
}

export async function startService(config: Config, log: Log, options: ServiceOptions): Promise<Service> {
  const database = await resolveDatabase(config, log);
  const pool = createPool(database.url, config.DB_POOL_SIZE, log);
  let http: FastifyInstance | undefined;
  let runner: Runner | undefined;
  let url: string | undefined;
  try {
    if (options.migrate) {
      const applied = await migrate(pool, log);
      if (applied.length > 0) log.info({ applied }, "migrations applied");
    }
    if (options.demo) {
      const demo = await ensureDemoShop(pool, config.DEMO_API_KEY);
      if (demo) {
        // Printed once, on the start that creates it: the key is stored only as a hash.
        process.stdout.write(`\nDemo shop created: ${demo.shopId}\nDemo API key (shown once): ${demo.apiKey}\n\n`);
      }
    }
    if (options.worker) runner = await startWorker({ pool, log, config }, options.worker_options);
    if (options.web) {
      const registry = createRegistry();
      const dispatcher = new Dispatcher({ registry, pool, config, log });
      http = createHttpServer({
        dispatcher,
        actions: registry.actions,
        log,
        bodyLimit: config.BODY_LIMIT_BYTES,
        healthy: async () => (await pool.query("select 1")).rowCount === 1,
      });
      url = await http.listen({ port: config.PORT, host: config.HOST });
      log.info({ url }, "HTTP API listening");
    }
  } catch (error) {
    await runner?.stop().catch(() => undefined);
    await http?.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await database.embedded?.stop().catch(() => undefined);
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const stop = async () => {
    // Order matters: stop taking requests and jobs, let running ones finish, then close pools.
    await http?.close();
    await runner?.stop("shutdown");
    await pool.end();
    await database.embedded?.stop();
  };
  return {
    pool,
    database,
    http,
    runner,
    url,
    stop: () => (stopping ??= stop()),
  };
}
