import type { AnyTaskDefinition } from "../../src/core/tasks.ts";
import { ALERTS_CRONTAB, alertTasks } from "./alerts.ts";
import { signupTasks } from "./signups.ts";

/** This area's tasks (merged in tasks/index.ts). */
export const backInStockTasks: readonly AnyTaskDefinition[] = [...signupTasks, ...alertTasks];

/** This area's crontab lines (appended to tasks/index.ts's CRONTAB). */
export const BACK_IN_STOCK_CRONTAB = ALERTS_CRONTAB;
