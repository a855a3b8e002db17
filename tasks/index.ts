import type { AnyTaskDefinition } from "../src/core/tasks.ts";
import { BACK_IN_STOCK_CRONTAB, backInStockTasks } from "./back_in_stock/index.ts";
import catalogSync from "./catalog_sync.ts";
import catalogSyncSchedule from "./catalog_sync_schedule.ts";
import maintenancePrune from "./maintenance_prune.ts";
import platformWebhook from "./platform_webhook.ts";
import { PREORDERS_CRONTAB, preordersTasks } from "./preorders/index.ts";
import { providerTasks } from "./providers/index.ts";
import { preorderScheduleTasks } from "./preorders/schedule.ts";
import { PREORDER_SHOP_CRONTAB, preorderShopTasks } from "./preorders/shop.ts";
import workerReap from "./worker_reap.ts";

/** Every task the worker runs (src/core/task-registry.ts refuses a name given twice). */
export const TASKS: readonly AnyTaskDefinition[] = [
  maintenancePrune,
  catalogSync,
  catalogSyncSchedule,
  platformWebhook,
  workerReap,
  ...backInStockTasks,
  ...preordersTasks,
  ...preorderScheduleTasks,
  ...preorderShopTasks,
  ...providerTasks,
];

/** graphile-worker crontab: schedules are claimed through PostgreSQL, so any number of workers may run it. */
export const CRONTAB = `
# every 15 minutes: jobs past retention, spent rate-limit windows
*/15 * * * * ${maintenancePrune.name} ?max=1
# every minute: free the jobs of workers whose heartbeat stopped (not after the 4-hour lock timeout)
* * * * * ${workerReap.name} ?max=1
# every 10 minutes: what changed in each connected shop's catalog
*/10 * * * * ${catalogSyncSchedule.name} ?id=catalog_incremental&max=1 {mode:"incremental"}
# nightly: a full pass, which also removes what the platform deleted
30 3 * * * ${catalogSyncSchedule.name} ?id=catalog_full&max=1 {mode:"full"}
${BACK_IN_STOCK_CRONTAB}
${PREORDERS_CRONTAB}
${PREORDER_SHOP_CRONTAB}
`;
