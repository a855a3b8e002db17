import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { waitFor } from "./wait.ts";

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject("adminDatabaseUrl") });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Drops the database once its connections are gone, forcing out only those still there after
 * `graceMs`. pg-pool's end() resolves before its clients' Terminate reaches the server; a forced
 * drop at once answers them with FATAL 57P01, which an ended pool emits as an unhandled 'error'.
 */
async function dropDatabase(name: string, graceMs = 3_000): Promise<void> {
  await admin(async (client) => {
    const gone = async () => {
      const { rows } = await client.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = $1", [name]);
      return (rows[0]?.n ?? 0) === 0 ? true : undefined;
    };
    // Past the grace, the connections still there are forced out.
    await waitFor(`the connections to ${name} to close`, gone, graceMs).catch(() => undefined);
    await client.query(`drop database if exists ${name} with (force)`);
  });
}

/** A fresh database cloned from the migrated template: one per test file (or per test that needs it). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `test_${randomBytes(6).toString("hex")}`;
  await admin((client) => client.query(`create database ${name} template ${inject("templateDatabase")}`));
  return {
    name,
    url: withDatabase(inject("adminDatabaseUrl"), name),
    drop: () => dropDatabase(name),
  };
}

/** An empty database, not migrated: for tests of the migrations themselves. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `test_empty_${randomBytes(6).toString("hex")}`;
  await admin((client) => client.query(`create database ${name}`));
  return {
    name,
    url: withDatabase(inject("adminDatabaseUrl"), name),
    drop: () => dropDatabase(name),
  };
}
