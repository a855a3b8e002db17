import type { AnyTaskDefinition } from "../../src/core/tasks.ts";
import reportExport from "./report_export.ts";
import signupsBulkDelete from "./signups_bulk_delete.ts";
import tagCustomer from "./tag_customer.ts";

/** Tasks of signups, settings and reports (merged in ./index.ts). */
export const signupTasks: readonly AnyTaskDefinition[] = [tagCustomer, signupsBulkDelete, reportExport];
