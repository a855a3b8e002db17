import type { Db } from "../../src/core/db.ts";
import { runNowByKey } from "../../src/queue/admin.ts";

/** Runs the waiting queue job under `key` now instead of at its backoff or schedule (no worker-held job moves). */
export async function runNow(db: Db, key: string): Promise<number> {
  return runNowByKey(db, key);
}
