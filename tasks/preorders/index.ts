import type { TaskList } from "graphile-worker";
import type { ServiceTaskDeps } from "../deps.ts";
import { preorderOfferTasks } from "./offers.ts";
import { preorderOrderTasks } from "./orders.ts";

/** This area's tasks, by graphile-worker task identifier (merged in tasks/index.ts). */
export function preordersTasks(deps: ServiceTaskDeps): TaskList {
  return {
    ...preorderOrderTasks(deps),
    ...preorderOfferTasks(deps),
  };
}

/** This area's crontab lines (appended to tasks/index.ts's CRONTAB). */
export const PREORDERS_CRONTAB = "";
