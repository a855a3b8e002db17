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

/**
 * The pool of `size` connections. `keepOpen` (a long-running service's pool): its idle connections
 * are never closed (pg-pool's `min` at the size), so the first burst after a quiet spell does not
 * open them again, nor plan its named statements again (they are prepared per connection); open
 * them at start with openPool. Otherwise an idle connection closes after 30 s.
 */
export function createPool(url: string, size: number, log: Log, options: { keepOpen?: boolean } = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    min: options.keepOpen ? size : 0,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on("error", (error) => log.warn({ err: error }, "idle database client error"));
  pool.on("connect", (client) => client.on("error", (error) => log.warn({ err: error }, "database client error")));
  return pool;
}

/**
 * Opens every connection of the pool at once and returns them to it idle: a service must not pay
 * connection setup during its first burst (a hundred restock webhooks at once grew the web
 * process's pool during the first wave, its transactions waiting for the connections). Answers
 * how many are open; a database not reachable now is logged, not thrown: the service starts
 * without it (/readyz says so) and the pool opens connections when they are asked for.
 */
export async function openPool(pool: pg.Pool, size: number, log: Log): Promise<number> {
  const clients = await Promise.allSettled(Array.from({ length: size }, () => pool.connect()));
  let opened = 0;
  let failure: unknown;
  for (const outcome of clients) {
    if (outcome.status === "fulfilled") {
      outcome.value.release();
      opened += 1;
    } else failure ??= outcome.reason;
  }
  if (failure !== undefined) log.warn({ err: failure, opened, size }, "database pool not fully opened at start; connections open when asked for");
  return opened;
}
