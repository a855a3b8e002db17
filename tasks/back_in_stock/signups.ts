import type { TaskList } from "graphile-worker";
import { TAG_CUSTOMER_TASK } from "../../src/actions/back_in_stock/signups/create.ts";
import { BULK_DELETE_KIND } from "../../src/actions/back_in_stock/signups/bulk-delete.ts";
import { REPORT_EXPORT_KIND } from "../../src/actions/back_in_stock/reports.ts";
import type { ServiceTaskDeps } from "../deps.ts";
import reportExport from "./report_export.ts";
import signupsBulkDelete from "./signups_bulk_delete.ts";
import tagCustomer from "./tag_customer.ts";

/** Tasks of signups, settings and reports (merged in ./index.ts). */
export function signupTasks(deps: ServiceTaskDeps): TaskList {
  return {
    [TAG_CUSTOMER_TASK]: tagCustomer(deps),
    [BULK_DELETE_KIND]: signupsBulkDelete(deps),
    [REPORT_EXPORT_KIND]: reportExport(deps),
  };
}
