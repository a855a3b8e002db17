import type { Task } from "graphile-worker";
import { runBulkDelete } from "../../src/actions/back_in_stock/signups/bulk-delete.ts";
import { jobTask } from "../../src/core/job-task.ts";
import type { ServiceTaskDeps } from "../deps.ts";

/** Application job `bis_signups_bulk_delete`: deletes signups, one outcome per id. */
export default function signupsBulkDelete(deps: ServiceTaskDeps): Task {
  return jobTask(deps, runBulkDelete);
}
