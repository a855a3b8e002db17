import type { AnyTaskDefinition } from "../../src/core/tasks.ts";
import { bulkSyncMetafieldsJobRun, resetMetafieldsJobRun } from "../../src/preorders/sync/jobs/metafields.ts";
import { limitCounterTasks } from "../../src/preorders/limits/jobs/counters.ts";
import { preorderOfferTasks } from "../../src/preorders/sync/jobs/offer-sync.ts";
import { preorderOrderTasks } from "./orders.ts";

/** This area's tasks (merged in tasks/index.ts). */
export const preordersTasks: readonly AnyTaskDefinition[] = [
  ...preorderOrderTasks,
  ...preorderOfferTasks,
  bulkSyncMetafieldsJobRun,
  resetMetafieldsJobRun,
  ...limitCounterTasks,
];
