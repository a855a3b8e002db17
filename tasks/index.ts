import type { AnyTaskDefinition } from "../src/core/tasks.ts";
import { backInStockTasks } from "./back_in_stock/index.ts";
import { catalogSyncJobRun } from "../src/catalog/jobs/sync.ts";
import catalogSyncSchedule from "../src/catalog/jobs/sync-schedule.ts";
import maintenancePrune from "../src/runtime/jobs/maintenance-prune.ts";
import platformWebhook from "../src/webhooks/jobs/platform-webhook.ts";
import { customerDataRequestJobRun } from "../src/webhooks/jobs/customer-data-request.ts";
import { preordersTasks } from "./preorders/index.ts";
import { providerTasks } from "./providers/index.ts";
import { preorderScheduleTasks } from "../src/preorders/offers/jobs/schedule.ts";
import { preorderShopTasks } from "../src/preorders/notifications/jobs/tasks.ts";
import { storefrontTasks } from "../src/storefront/jobs/shop-config.ts";
import workerReap from "../src/runtime/jobs/worker-reap.ts";

/**
 * Every task the worker runs (src/core/task-registry.ts refuses a name given twice), each with its
 * schedules (`cron`): graphile-worker's crontab runs them, at most once per tick across workers.
 */
export const TASKS: readonly AnyTaskDefinition[] = [
  maintenancePrune,
  catalogSyncJobRun,
  catalogSyncSchedule,
  platformWebhook,
  customerDataRequestJobRun,
  workerReap,
  ...backInStockTasks,
  ...preordersTasks,
  ...preorderScheduleTasks,
  ...preorderShopTasks,
  ...providerTasks,
  ...storefrontTasks,
];
