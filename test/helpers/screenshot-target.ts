import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type BenchDatabase, acquireDatabase } from "../../bench/lib.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where `npm run screenshots` writes unless told: outside the checkout, the same for both of its scripts. */
export const SCRATCH_SCREENSHOTS_DIR = path.join(os.tmpdir(), "preorder-bis-api-screenshots");

/**
 * The directory the screenshots go to: SCREENSHOTS_DIR (relative to the checkout; `docs` updates
 * the tracked ones), else a scratch directory, so a run never overwrites docs/*.png by surprise.
 */
export function screenshotsDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.SCREENSHOTS_DIR ? path.resolve(ROOT, env.SCREENSHOTS_DIR) : SCRATCH_SCREENSHOTS_DIR;
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The screenshots' database, always one they create (migrated and filled with demo data, then
 * dropped): on DATABASE_URL's server when it is set (never in that database itself), else on the
 * embedded server under .data/bench. No server is used that the caller did not name.
 */
export function screenshotDatabase(prefix: string, env: NodeJS.ProcessEnv = process.env): Promise<BenchDatabase> {
  return acquireDatabase(prefix, { useDatabaseUrl: false, adminUrl: env.DATABASE_URL ?? null });
}
