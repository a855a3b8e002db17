import { bulkCancelTask, bulkReleaseTask, bulkSetTagsTask, runBulkCancel, runBulkRelease, runBulkSetTags } from "../../src/preorders/orders/actions/bulk.ts";
import { chargeBalanceTask, runChargeBalance } from "../../src/preorders/orders/actions/charge-balance.ts";
import { reportExportTask, runReportExport } from "../../src/preorders/reports/actions/export.ts";
import { recalculateCountsTask, runRecalculateCounts } from "../../src/preorders/variants/actions/bulk-recalculate-counts.ts";
import { defineJobTask } from "../../src/core/job-task.ts";
import type { AnyTaskDefinition } from "../../src/core/tasks.ts";

/** Jobs of preorder orders, counts and report exports: thin wrappers over the runs in src/preorders/orders, variants and reports. */
export const preorderOrderTasks: readonly AnyTaskDefinition[] = [
  defineJobTask({ name: bulkReleaseTask.name, run: runBulkRelease }),
  defineJobTask({ name: bulkCancelTask.name, run: runBulkCancel }),
  defineJobTask({ name: bulkSetTagsTask.name, run: (ctx) => runBulkSetTags(ctx, ctx.platform) }),
  defineJobTask({ name: chargeBalanceTask.name, run: (ctx) => runChargeBalance(ctx, ctx.platform) }),
  defineJobTask({ name: recalculateCountsTask.name, run: runRecalculateCounts }),
  defineJobTask({ name: reportExportTask.name, run: runReportExport }),
];
