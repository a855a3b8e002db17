import type { TaskList } from "graphile-worker";
import type { TaskDeps } from "../src/core/job-task.ts";
import maintenancePrune from "./maintenance_prune.ts";

/** Every task the worker runs, by graphile-worker task identifier. */
export function taskList(deps: TaskDeps): TaskList {
  return {
    maintenance_prune: maintenancePrune(deps),
  };
}

/** graphile-worker crontab: schedules are claimed through PostgreSQL, so any number of workers may run it. */
export const CRONTAB = `
# every 15 minutes: jobs past retention, spent rate-limit windows
*/15 * * * * maintenance_prune ?max=1
`;
