import fs from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { type EmbeddedServer, ensureEmbeddedPostgres } from "../src/db/embedded.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";

/** Per run, so that concurrent runs (two terminals, a helper) never drop each other's template. */
export const TEMPLATE_DATABASE = `app_test_template_${process.pid}`;
const USERS_DIR = path.resolve(".data/test-users");

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}

let embedded: EmbeddedServer | undefined;
let adminUrlInUse: string | undefined;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * One PostgreSQL for the run: TEST_DATABASE_URL when set, else an embedded server under
 * .data/test. Migrates a template database once; each test file clones it (test/helpers/db.ts).
 */
export async function setup(project: TestProject): Promise<void> {
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    embedded = await ensureEmbeddedPostgres({
      dataDir: path.resolve(".data/test"),
      port: Number(process.env.TEST_EMBEDDED_PG_PORT ?? 54339),
      database: "postgres",
      // A throwaway cluster: durability buys nothing here.
      settings: { fsync: "off", synchronous_commit: "off", full_page_writes: "off" },
    });
    adminUrl = embedded.url;
    // Runs sharing the embedded server register here; the last one out stops it.
    await fs.mkdir(USERS_DIR, { recursive: true });
    await fs.writeFile(path.join(USERS_DIR, String(process.pid)), "");
  }
  adminUrlInUse = adminUrl;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${TEMPLATE_DATABASE} with (force)`);
    await admin.query(`create database ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE_DATABASE}`;
  const pool = new pg.Pool({ connectionString: templateUrl.toString(), max: 2 });
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  try {
    await migrate(pool, createLogger("silent"));
  } finally {
    await pool.end();
  }
  project.provide("adminDatabaseUrl", adminUrl);
  project.provide("templateDatabase", TEMPLATE_DATABASE);
}

export async function teardown(): Promise<void> {
  if (adminUrlInUse) {
    const admin = new pg.Client({ connectionString: adminUrlInUse });
    await admin.connect();
    await admin.query(`drop database if exists ${TEMPLATE_DATABASE} with (force)`).finally(() => admin.end());
  }
  if (!embedded) return;
  await fs.rm(path.join(USERS_DIR, String(process.pid)), { force: true });
  const others = (await fs.readdir(USERS_DIR)).map(Number).filter((pid) => pid !== process.pid && isAlive(pid));
  if (others.length === 0) await embedded.stop({ force: true });
}
