import type { TaskList } from "graphile-worker";
import { BULK_CANCEL_KIND, BULK_RELEASE_KIND, BULK_SET_TAGS_KIND, runBulkCancel, runBulkRelease, runBulkSetTags } from "../../src/actions/preorders/orders/bulk.ts";
import { CHARGE_BALANCE_KIND, runChargeBalance } from "../../src/actions/preorders/orders/charge-balance.ts";
import { REPORT_EXPORT_KIND, runReportExport } from "../../src/actions/preorders/reports/export.ts";
import { RECALCULATE_COUNTS_KIND, runRecalculateCounts } from "../../src/actions/preorders/orders/recalculate-counts.ts";
import { jobTask } from "../../src/core/job-task.ts";
import type { ServiceTaskDeps } from "../deps.ts";

/** Jobs of preorder orders, counts and report exports: thin wrappers over src/actions/preorders/orders. */
export function preorderOrderTasks(deps: ServiceTaskDeps): TaskList {
  return {
    [BULK_RELEASE_KIND]: jobTask(deps, runBulkRelease),
    [BULK_CANCEL_KIND]: jobTask(deps, runBulkCancel),
    [BULK_SET_TAGS_KIND]: jobTask(deps, (ctx) => runBulkSetTags(ctx, deps.platform)),
    [CHARGE_BALANCE_KIND]: jobTask(deps, (ctx) => runChargeBalance(ctx, deps.platform)),
    [RECALCULATE_COUNTS_KIND]: jobTask(deps, runRecalculateCounts),
    [REPORT_EXPORT_KIND]: jobTask(deps, runReportExport),
  };
}
