import { bulkDeleteTask, runBulkDelete } from "../../src/back_in_stock/signups/actions/bulk-delete.ts";
import { defineJobTask } from "../../src/core/job-task.ts";

/** Application job `bis_signups_bulk_delete`: deletes signups, one outcome per id. */
export default defineJobTask({ name: bulkDeleteTask.name, run: runBulkDelete });
