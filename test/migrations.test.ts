import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrate, readMigrations } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { useTestEnv } from "./helpers/fixture.ts";

function migrateInChildProcess(databaseUrl: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["test/fixtures/migrate.ts"], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "silent" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

describe("migrations", () => {
  const env = useTestEnv({ database: "empty", app: false, shop: false });

  it("two processes migrating one empty database at once both succeed, and each migration runs once", async () => {
    const [first, second] = await Promise.all([migrateInChildProcess(env.db.url), migrateInChildProcess(env.db.url)]);
    expect(first?.code, first?.output).toBe(0);
    expect(second?.code, second?.output).toBe(0);

    const files = (await readMigrations()).map((m) => m.name);
    const applied = [first, second].map((r) => JSON.parse(r?.output.trim().split("\n").pop() ?? "[]") as string[]);
    // Between them they applied every file exactly once; the one that waited found nothing left to do.
    expect([...(applied[0] ?? []), ...(applied[1] ?? [])].sort()).toEqual(files);

    const client = new pg.Client({ connectionString: env.db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>("select name from app_migrations order by id");
      expect(rows.map((r) => r.name)).toEqual(files);
      const worker = await client.query("select 1 from information_schema.schemata where schema_name = 'graphile_worker'");
      expect(worker.rowCount).toBe(1);
    } finally {
      await client.end();
    }
  });

  it("refuses to start when graphile-worker's job table lost the trigger that completes application jobs", async () => {
    const pool = new pg.Pool({ connectionString: env.db.url, max: 2 });
    pool.on("error", () => undefined);
    const log = createLogger("silent");
    try {
      await migrate(pool, log);
      await pool.query("drop trigger app_job_runs_completed on graphile_worker._private_jobs");
      await expect(migrate(pool, log)).rejects.toThrow("the queue's job table lacks the app_job_runs_completed trigger (sql/103_job_completion_trigger.sql)");
    } finally {
      await pool.end();
    }
  });

  it("numbers the files uniquely, in order", async () => {
    const ids = (await readMigrations()).map((m) => m.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("migration order", () => {
  const env = useTestEnv({ database: "empty", app: false, shop: false });

  async function sqlDir(files: Record<string, string>): Promise<string> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "migrations-"));
    for (const [name, sql] of Object.entries(files)) await fs.writeFile(path.join(dir, name), sql);
    return dir;
  }

  async function appliedNames(pool: pg.Pool): Promise<string[]> {
    return (await pool.query<{ name: string }>("select name from app_migrations order by id")).rows.map((r) => r.name);
  }

  it("refuses a new file numbered below the highest applied one, and a renamed applied file; takes the next number", async () => {
    const pool = new pg.Pool({ connectionString: env.db.url, max: 2 });
    pool.on("error", () => undefined);
    const log = createLogger("silent");
    try {
      const dir = await sqlDir({ "001_first.sql": "create table first_t (id int)", "003_third.sql": "create table third_t (id int)" });
      expect(await migrate(pool, log, dir)).toEqual(["001_first.sql", "003_third.sql"]);

      await fs.writeFile(path.join(dir, "002_late.sql"), "create table late_t (id int)");
      await expect(migrate(pool, log, dir)).rejects.toThrow(
        "Migration 002_late.sql is numbered below 003_third.sql, which is already applied: a new migration takes the next number",
      );
      expect(await appliedNames(pool)).toEqual(["001_first.sql", "003_third.sql"]);
      expect((await pool.query("select to_regclass('late_t') as t")).rows[0]).toEqual({ t: null });

      await fs.rm(path.join(dir, "002_late.sql"));
      await fs.rename(path.join(dir, "003_third.sql"), path.join(dir, "003_renamed.sql"));
      await expect(migrate(pool, log, dir)).rejects.toThrow(
        "Migration 3 was applied as 003_third.sql, but its file is now 003_renamed.sql: a landed migration is never renamed",
      );

      await fs.rename(path.join(dir, "003_renamed.sql"), path.join(dir, "003_third.sql"));
      await fs.writeFile(path.join(dir, "004_next.sql"), "create table next_t (id int)");
      expect(await migrate(pool, log, dir)).toEqual(["004_next.sql"]);
      expect(await appliedNames(pool)).toEqual(["001_first.sql", "003_third.sql", "004_next.sql"]);
    } finally {
      await pool.end();
    }
  });
});
