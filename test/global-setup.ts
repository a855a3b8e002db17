import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { type EmbeddedServer, ensureEmbeddedPostgres } from "../src/db/embedded.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";

export const TEMPLATE_DATABASE = "app_test_template";

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}

let embedded: EmbeddedServer | undefined;

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
  }
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
  try {
    await migrate(pool, createLogger("silent"));
  } finally {
    await pool.end();
  }
  project.provide("adminDatabaseUrl", adminUrl);
  project.provide("templateDatabase", TEMPLATE_DATABASE);
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
}
