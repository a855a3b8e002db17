import type { AnyTaskDefinition } from "../../src/core/tasks.ts";
import { bulkCancelJobRun, bulkReleaseJobRun, bulkSetTagsJobRun } from "../../src/preorders/orders/jobs/bulk.ts";
import { sendPaymentCollectionUrlJobRun } from "../../src/preorders/orders/jobs/payment-collection.ts";
import { chargeBalanceJobRun } from "../../src/preorders/orders/jobs/charge-balance.ts";
import { reportExportJobRun } from "../../src/preorders/reports/jobs/export.ts";
import { recalculateCountsJobRun } from "../../src/preorders/variants/jobs/recalculate-counts.ts";

/** Jobs of preorder orders, counts and report exports (each defined beside its run in src/preorders/<part>/jobs/). */
export const preorderOrderTasks: readonly AnyTaskDefinition[] = [
  bulkReleaseJobRun,
  bulkCancelJobRun,
  bulkSetTagsJobRun,
  sendPaymentCollectionUrlJobRun,
  chargeBalanceJobRun,
  recalculateCountsJobRun,
  reportExportJobRun,
];
