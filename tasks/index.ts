import type { AnyTaskDefinition } from "../src/core/tasks.ts";
import { backInStockTasks } from "./back_in_stock/index.ts";
import catalogSync from "./catalog_sync.ts";
import catalogSyncSchedule from "./catalog_sync_schedule.ts";
import maintenancePrune from "./maintenance_prune.ts";
import platformWebhook from "./platform_webhook.ts";
import { preordersTasks } from "./preorders/index.ts";
import { providerTasks } from "./providers/index.ts";
import { preorderScheduleTasks } from "./preorders/schedule.ts";
import { preorderShopTasks } from "./preorders/shop.ts";
import workerReap from "./worker_reap.ts";

/**
 * Every task the worker runs (src/core/task-registry.ts refuses a name given twice), each with its
 * schedules (`cron`): graphile-worker's crontab runs them, at most once per tick across workers.
 */
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
