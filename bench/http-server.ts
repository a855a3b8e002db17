/**
 * The system under test for bench/http.ts, run in its own process so that the load generator
 * never shares its event loop.
 *
 *   node bench/http-server.ts action    the service's real HTTP layer (createHttpServer +
 *                                       Dispatcher + createRegistry), as in production
 *   node bench/http-server.ts baseline  a bare fastify route on the same kind of pool that reads
 *                                       the same shops row with one SELECT
 *
 * Environment: DATABASE_URL (required), BENCH_SHOP_ID (baseline), and the service's own settings
 * (DB_POOL_SIZE, LOG_LEVEL, ...). Prints `BENCH_LISTENING <port>` on stdout once it listens, and
 * shuts down cleanly on SIGTERM or SIGINT. Any other stdout line (logs) is relayed by the parent.
 */
import Fastify, { type FastifyInstance } from "fastify";
import type pg from "pg";
import { createRegistry } from "../src/action-registry.ts";
import { loadConfig } from "../src/config.ts";
import { Dispatcher } from "../src/core/dispatcher.ts";
import { createHttpServer } from "../src/http/server.ts";
import { createLogger } from "../src/logger.ts";
import { createPool } from "../src/runtime/database.ts";

const LISTENING_PREFIX = "BENCH_LISTENING ";

/** The columns the languages action reads (src/account/actions/languages.ts). */
const LANGUAGES_SQL = `select default_locale, app_locale, multi_language_enabled, product_translations_enabled, published_locales, granted_scopes
  from shops where id = $1`;

/** Resolves once no client has been checked out or waited for over a few consecutive checks (at most 5 s). */
async function drained(pool: pg.Pool): Promise<void> {
  const deadline = Date.now() + 5000;
  let quiet = 0;
  while (quiet < 5 && Date.now() < deadline) {
    quiet = pool.waitingCount === 0 && pool.idleCount === pool.totalCount ? quiet + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode !== "action" && mode !== "baseline") throw new Error("usage: node bench/http-server.ts action|baseline");
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error("DATABASE_URL is required");

  // The production configuration, except a rate-limit budget the benchmark cannot exhaust:
  // the limit is still charged in PostgreSQL on every request, exactly as in production.
  const config = loadConfig({ ...process.env, RATE_LIMIT_POINTS: "1000000000", PORT: "0" });
  // The service's logger, as in production (request logging is off; the parent relays other lines).
  const log = createLogger(config.LOG_LEVEL);
  const pool = createPool(databaseUrl, config.DB_POOL_SIZE, log);

  let app: FastifyInstance;
  if (mode === "action") {
    const registry = createRegistry();
    app = createHttpServer({
      dispatcher: new Dispatcher({ registry, pool, config, log }),
      actions: registry.actions,
      log,
      bodyLimit: config.BODY_LIMIT_BYTES,
      healthy: async () => (await pool.query("select 1")).rowCount === 1,
    });
  } else {
    const shopId = process.env.BENCH_SHOP_ID;
    if (!shopId) throw new Error("BENCH_SHOP_ID is required for the baseline");
    app = Fastify();
    app.get("/api/v2/external/account/languages", async (_request, reply) => {
      const { rows } = await pool.query(LANGUAGES_SQL, [shopId]);
      return reply.send(rows[0]);
    });
  }

  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  // Warm the pool to its full size, as a long-running server would be.
  const clients = await Promise.all(Array.from({ length: config.DB_POOL_SIZE }, () => pool.connect()));
  for (const client of clients) client.release();
  process.stdout.write(`${LISTENING_PREFIX}${new URL(address).port}\n`);

  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    void (async () => {
      await app.close().catch(() => undefined);
      // Requests the load generator abandoned at the end may still be running: let them finish
      // before the pool goes, so that they do not log errors about an ended pool.
      await drained(pool);
      await pool.end().catch(() => undefined);
      process.exit(0);
    })();
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`http-server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
