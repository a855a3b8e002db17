import type { AnyTaskDefinition } from "../../src/core/tasks.ts";
import { reportExportJobRun } from "../../src/back_in_stock/reports/jobs/export.ts";
import { bulkDeleteJobRun } from "../../src/back_in_stock/signups/jobs/bulk-delete.ts";
import tagCustomer from "../../src/back_in_stock/signups/jobs/tag-customer.ts";

/** Tasks of signups, settings and reports (merged in ./index.ts). */
export const signupTasks: readonly AnyTaskDefinition[] = [tagCustomer, bulkDeleteJobRun, reportExportJobRun];
