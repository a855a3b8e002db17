import pg from "pg";
import type { Config } from "../config.ts";
import { type EmbeddedServer, ensureEmbeddedPostgres } from "../db/embedded.ts";
import type { Log } from "../logger.ts";

export interface Database {
  url: string;
  /** Present when the URL points at the embedded server under DATA_DIR. */
  embedded?: EmbeddedServer;
}

/** DATABASE_URL when set; otherwise the embedded server under DATA_DIR, started or reused. */
export async function resolveDatabase(config: Config, log: Log): Promise<Database> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL };
  const embedded = await ensureEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.EMBEDDED_PG_PORT,
    log: (message) => log.info(message),
  });
  return { url: embedded.url, embedded };
}

export function createPool(url: string, size: number, log: Log): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: size, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on("error", (error) => log.warn({ err: error }, "idle database client error"));
  pool.on("connect", (client) => client.on("error", (error) => log.warn({ err: error }, "database client error")));
  return pool;
}
