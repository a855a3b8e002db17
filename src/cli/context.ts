import type pg from "pg";
import { type Config, loadConfig } from "../config.ts";
import { migrate } from "../db/migrate.ts";
import { type Log, createLogger } from "../logger.ts";
import { createPool, describeDatabase, resolveDatabase, startedHere } from "../runtime/database.ts";

interface CliContext {
  pool: pg.Pool;
  log: Log;
  config: Config;
}

/** What a parsed command line runs; parsing happens first, so a usage error never touches the database. */
export interface Command {
  /** Apply pending migrations silently before running (all but `migrate` itself). */
  ensureSchema: boolean;
  run(context: CliContext): Promise<void>;
}

export type CommandParser = (args: string[]) => Command;

/**
 * Connects to DATABASE_URL or the embedded server (reusing the one `npm start` runs), runs the
 * command, then closes the pool and stops the embedded server if this process started it.
 */
export async function runWithContext(command: Command): Promise<void> {
  const config = loadConfig();
  // Logs go to stderr at warn unless LOG_LEVEL says otherwise: stdout is for results.
  const log = createLogger(process.env.LOG_LEVEL ? config.LOG_LEVEL : "warn", { fd: 2 });
  const database = await resolveDatabase(config, log);
  // Said before the answer: an empty database's "No jobs found." is not the running service's.
  if (startedHere(database)) process.stderr.write(`cli: using ${describeDatabase(database)}.\n`);
  try {
    const pool = createPool(database.url, 3, log);
    try {
      if (command.ensureSchema) {
        const applied = await migrate(pool, log);
        if (applied.length > 0) log.info({ applied }, "migrations applied");
      }
      await command.run({ pool, log, config });
    } finally {
      await pool.end();
    }
  } finally {
    await database.embedded?.stop();
  }
}
