import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { cleanup } from "../bench/lib.ts";
import { SCRATCH_SCREENSHOTS_DIR, screenshotDatabase, screenshotsDir } from "./helpers/screenshot-target.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ app: false, shop: false });

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: env.db.url });
  await client.connect();
  try {
    return ((await client.query("select 1 from pg_database where datname = $1", [name])).rowCount ?? 0) > 0;
  } finally {
    await client.end();
  }
}

describe("npm run screenshots touches only what it was told to", () => {
  it("writes to a scratch directory unless SCREENSHOTS_DIR says; SCREENSHOTS_DIR=docs updates the tracked ones", () => {
    expect(screenshotsDir({})).toBe(SCRATCH_SCREENSHOTS_DIR);
    expect(SCRATCH_SCREENSHOTS_DIR.startsWith(path.resolve("docs"))).toBe(false);
    expect(screenshotsDir({ SCREENSHOTS_DIR: "docs" })).toBe(path.resolve("docs"));
  });

  it("with DATABASE_URL, creates a scratch database on that server and drops it, never using the named database", async () => {
    const named = new URL(env.db.url).pathname.slice(1);
    const db = await screenshotDatabase("shots", { DATABASE_URL: env.db.url });
    const scratch = new URL(db.url).pathname.slice(1);
    expect(scratch).not.toBe(named);
    expect(scratch).toMatch(/^shots_[0-9a-f]{12}$/);
    expect(db.description).toBe(`scratch database ${scratch} on ${new URL(env.db.url).host}`);
    expect(await databaseExists(scratch)).toBe(true);
    await cleanup();
    expect(await databaseExists(scratch)).toBe(false);
  });
});
