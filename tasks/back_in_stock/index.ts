import type { TaskList } from "graphile-worker";
import type { ServiceTaskDeps } from "../deps.ts";

/** This area's tasks, by graphile-worker task identifier (merged in tasks/index.ts). */
export function backInStockTasks(_deps: ServiceTaskDeps): TaskList {
  return {};
}

/** This area's crontab lines (appended to tasks/index.ts's CRONTAB). */
export const BACK_IN_STOCK_CRONTAB = "";
