import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runMigrations as runWorkerMigrations } from "graphile-worker";
import type pg from "pg";
import { type Log, workerLogger } from "../logger.ts";
import { jobCompletionTriggerPresent } from "../queue/inspect.ts";

const SQL_DIR = fileURLToPath(new URL("../../sql/", import.meta.url));
/** Any constant unique to this application; every migrating process waits on it. */
export const MIGRATION_LOCK_ID = 7_215_300_001;

interface Migration {
  id: number;
  name: string;
  sql: string;
}

export async function readMigrations(dir: string = SQL_DIR): Promise<Migration[]> {
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith(".sql")).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = /^(\d+)_[a-z0-9_]+\.sql$/.exec(file);
    if (!match?.[1]) throw new Error(`Migration file name must be NNN_name.sql: ${file}`);
    const id = Number(match[1]);
    if (migrations.some((m) => m.id === id)) throw new Error(`Duplicate migration number ${id}: ${file}`);
    migrations.push({ id, name: file, sql: await fs.readFile(path.join(dir, file), "utf8") });
  }
  return migrations;
}

/**
 * Refuses a pending migration numbered below the highest applied one, and an applied number whose
 * file now has another name. Either means the schema of a database that already ran the later
 * files would differ from a fresh one's: a new migration takes the next number, and a landed file
 * is never renamed.
 */
function checkMigrationOrder(migrations: Migration[], applied: Map<number, string>): void {
  let highest: { id: number; name: string } | undefined;
  for (const [id, name] of applied) if (!highest || id > highest.id) highest = { id, name };
  for (const migration of migrations) {
    const appliedName = applied.get(migration.id);
    if (appliedName !== undefined) {
      if (appliedName !== migration.name) {
        throw new Error(`Migration ${migration.id} was applied as ${appliedName}, but its file is now ${migration.name}: a landed migration is never renamed`);
      }
    } else if (highest && migration.id < highest.id) {
      throw new Error(`Migration ${migration.name} is numbered below ${highest.name}, which is already applied: a new migration takes the next number`);
    }
  }
}

/**
 * Installs graphile-worker's schema, then applies the numbered files of `sql/` that have not run,
 * in order, each in its own transaction. A session advisory lock makes concurrent starts wait, not
 * race. Returns the names of the migrations this call applied.
 */
export async function migrate(pool: pg.Pool, log: Log, dir: string = SQL_DIR): Promise<string[]> {
  const migrations = await readMigrations(dir);
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    try {
      await runWorkerMigrations({ pgPool: pool, logger: workerLogger(log) });
      await client.query(`create table if not exists app_migrations (
        id integer primary key,
        name text not null,
        applied_at timestamptz not null default now()
      )`);
      const done = new Map(
        (await client.query<{ id: number; name: string }>("select id, name from app_migrations")).rows.map((r) => [r.id, r.name]),
      );
      checkMigrationOrder(migrations, done);
      for (const migration of migrations) {
        if (done.has(migration.id)) continue;
        await client.query("begin");
        try {
          await client.query(migration.sql);
          await client.query("insert into app_migrations (id, name) values ($1, $2)", [migration.id, migration.name]);
          await client.query("commit");
        } catch (error) {
          await client.query("rollback");
          throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(migration.name);
      }
      if (done.has(103) || applied.some((name) => name.startsWith("103_"))) {
        if (!(await jobCompletionTriggerPresent(client))) {
          throw new Error("the queue's job table lacks the app_job_runs_completed trigger (sql/103_job_completion_trigger.sql): application jobs would never show completed; re-create it before starting");
        }
      }
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]);
    }
  } finally {
    client.release();
  }
  return applied;
}
