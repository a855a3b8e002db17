import type { AnyTaskDefinition } from "../../src/core/tasks.ts";
import { alertTasks } from "../../src/back_in_stock/alerts/jobs/tasks.ts";
import { merchantAlertTasks } from "../../src/back_in_stock/settings/jobs/tasks.ts";
import { signupTasks } from "./signups.ts";

/** This area's tasks (merged in tasks/index.ts). */
export const backInStockTasks: readonly AnyTaskDefinition[] = [...signupTasks, ...alertTasks, ...merchantAlertTasks];
