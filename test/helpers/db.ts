import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

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

/** A fresh database cloned from the migrated template: one per test file (or per test that needs it). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `test_${randomBytes(6).toString("hex")}`;
  await admin((client) => client.query(`create database ${name} template ${inject("templateDatabase")}`));
  return {
    name,
    url: withDatabase(inject("adminDatabaseUrl"), name),
    drop: () => admin(async (client) => void (await client.query(`drop database if exists ${name} with (force)`))),
  };
}

/** An empty database, not migrated: for tests of the migrations themselves. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `test_empty_${randomBytes(6).toString("hex")}`;
  await admin((client) => client.query(`create database ${name}`));
  return {
    name,
    url: withDatabase(inject("adminDatabaseUrl"), name),
    drop: () => admin(async (client) => void (await client.query(`drop database if exists ${name} with (force)`))),
  };
}
