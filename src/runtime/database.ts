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

/** A connection string fit to print: its password, if any, masked. */
export function printableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(DATABASE_URL, not a URL)";
  }
}

/**
 * Which database a command-line process (the CLI, the MCP server over stdio) opened, in a sentence:
 * DATABASE_URL's, the embedded server another process runs, or one it started itself (then it is
 * not the running service's: that one would have been found through its postmaster.pid).
 */
export function describeDatabase(database: Database): string {
  const embedded = database.embedded;
  if (!embedded) return `the database of DATABASE_URL (${printableUrl(database.url)})`;
  const where = `the embedded PostgreSQL in ${embedded.dataDir} (${printableUrl(database.url)})`;
  if (embedded.origin === "running") return `${where}, which another process runs`;
  if (embedded.origin === "adopted") return `${where}, left running by a process now gone; stopped on exit`;
  return (
    `${where}, started now${embedded.initialised ? " as a new, empty cluster" : ""}: no service runs on this DATA_DIR; it is stopped on exit. ` +
    "If the service runs with another DATA_DIR or DATABASE_URL, set the same here"
  );
}

/** Whether a command-line process should say which database it opened unasked: one it did not find running. */
export function startedHere(database: Database): boolean {
  return database.embedded !== undefined && database.embedded.origin !== "running";
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
