import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runMigrations as runWorkerMigrations } from "graphile-worker";
import type pg from "pg";
import { type Log, workerLogger } from "../logger.ts";

const SQL_DIR = fileURLToPath(new URL("../../sql/", import.meta.url));
/** Any constant unique to this application; every migrating process waits on it. */
export const MIGRATION_LOCK_ID = 7_215_300_001;

export interface Migration {
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
 * Installs graphile-worker's schema, then applies the numbered files of `sql/` that have not run,
 * each in its own transaction. A session advisory lock makes concurrent starts wait, not race.
 * Returns the names of the migrations this call applied.
 */
export async function migrate(pool: pg.Pool, log: Log): Promise<string[]> {
  const migrations = await readMigrations();
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
      const done = new Set(
        (await client.query<{ id: number }>("select id from app_migrations")).rows.map((r) => r.id),
      );
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
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]);
    }
  } finally {
    client.release();
  }
  return applied;
}
