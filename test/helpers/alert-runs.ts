import type pg from "pg";
import { waitFor } from "./wait.ts";
import { runNow } from "./queue.ts";

/**
 * Runs an alert run's next batch now instead of after its interval. The batch that just sent may
 * still be committing, so first wait until it has scheduled the next one under the run's job key.
 */
export async function runNextBatchNow(pool: pg.Pool, shopId: string, jobKey: string): Promise<void> {
  await waitFor("the next batch to be scheduled", async () => {
    const { rows } = await pool.query("select 1 from graphile_worker.jobs where key = $1 and locked_at is null and run_at > now()", [jobKey]);
    return rows.length > 0 ? true : undefined;
  });
  await pool.query("update bis_alert_runs set next_batch_at = now() where shop_id = $1 and status = 'running'", [shopId]);
  await runNow(pool, jobKey);
}
