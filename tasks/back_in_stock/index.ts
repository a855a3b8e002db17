import type { TaskList } from "graphile-worker";
import type { ServiceTaskDeps } from "../deps.ts";
import { ALERTS_CRONTAB, alertTasks } from "./alerts.ts";
import { signupTasks } from "./signups.ts";

/** This area's tasks, by graphile-worker task identifier (merged in tasks/index.ts). */
export function backInStockTasks(deps: ServiceTaskDeps): TaskList {
  return {
    ...signupTasks(deps),
    ...alertTasks(deps),
  };
}

/** This area's crontab lines (appended to tasks/index.ts's CRONTAB). */
export const BACK_IN_STOCK_CRONTAB = ALERTS_CRONTAB;
