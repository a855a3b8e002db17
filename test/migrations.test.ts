import { spawn } from "node:child_process";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { readMigrations } from "../src/db/migrate.ts";
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

  it("numbers the files uniquely, in order", async () => {
    const ids = (await readMigrations()).map((m) => m.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
