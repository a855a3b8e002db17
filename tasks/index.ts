import type { TaskList } from "graphile-worker";
import { CATALOG_SYNC_KIND } from "../src/catalog/schedule.ts";
import { WEBHOOK_TASK } from "../src/webhooks/intake.ts";
import { BACK_IN_STOCK_CRONTAB, backInStockTasks } from "./back_in_stock/index.ts";
import catalogSync from "./catalog_sync.ts";
import catalogSyncSchedule from "./catalog_sync_schedule.ts";
import type { ServiceTaskDeps } from "./deps.ts";
import maintenancePrune from "./maintenance_prune.ts";
import platformWebhook from "./platform_webhook.ts";
import { PREORDERS_CRONTAB, preordersTasks } from "./preorders/index.ts";
import workerReap from "./worker_reap.ts";

/** Every task the worker runs, by graphile-worker task identifier. */
export function taskList(deps: ServiceTaskDeps): TaskList {
  return {
    maintenance_prune: maintenancePrune(deps),
    [CATALOG_SYNC_KIND]: catalogSync(deps),
    catalog_sync_schedule: catalogSyncSchedule(deps),
    [WEBHOOK_TASK]: platformWebhook(deps),
    worker_reap: workerReap(deps),
    ...backInStockTasks(deps),
    ...preordersTasks(deps),
  };
}

/** graphile-worker crontab: schedules are claimed through PostgreSQL, so any number of workers may run it. */
export const CRONTAB = `
# every 15 minutes: jobs past retention, spent rate-limit windows
*/15 * * * * maintenance_prune ?max=1
# every minute: free the jobs of workers whose heartbeat stopped (not after the 4-hour lock timeout)
* * * * * worker_reap ?max=1
# every 10 minutes: what changed in each connected shop's catalog
*/10 * * * * catalog_sync_schedule ?id=catalog_incremental&max=1 {mode:"incremental"}
# nightly: a full pass, which also removes what the platform deleted
30 3 * * * catalog_sync_schedule ?id=catalog_full&max=1 {mode:"full"}
${BACK_IN_STOCK_CRONTAB}
${PREORDERS_CRONTAB}
`;
