import type { FastifyInstance } from "fastify";
import pg from "pg";
import type { Config } from "../../src/config.ts";
import type { AnyAction } from "../../src/core/action.ts";
import { Dispatcher } from "../../src/core/dispatcher.ts";
import { Registry } from "../../src/core/registry.ts";
import { createHttpServer } from "../../src/http/server.ts";
import { type Log, createLogger } from "../../src/logger.ts";
import { testConfig } from "./app.ts";

export interface CustomApp {
  origin: string;
  pool: pg.Pool;
  config: Config;
  http: FastifyInstance;
  close(): Promise<void>;
}

/** The real HTTP layer and dispatcher over a registry of the test's own actions. */
export async function startCustomApp(
  databaseUrl: string,
  actions: readonly AnyAction[],
  options: { overrides?: Record<string, string>; log?: Log } = {},
): Promise<CustomApp> {
  const config = testConfig(databaseUrl, options.overrides);
  const log = options.log ?? createLogger(config.LOG_LEVEL);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 3 });
  const http = createHttpServer({
    dispatcher: new Dispatcher({ registry: new Registry(actions), pool, config, log }),
    log,
    bodyLimit: config.BODY_LIMIT_BYTES,
    healthy: async () => true,
  });
  const origin = await http.listen({ port: 0, host: "127.0.0.1" });
  return {
    origin,
    pool,
    config,
    http,
    async close() {
      await http.close();
      await pool.end();
    },
  };
}
