import type { AnyAction } from "../../../core/action.ts";
import { bulkCancel, bulkRelease, bulkSendPaymentCollectionUrl, bulkSetTags } from "./bulk.ts";
import { cancelOrder } from "./cancel.ts";
import { chargeBalance } from "./charge-balance.ts";
import { getOrder } from "./get.ts";
import { listOrders } from "./list.ts";
import { bulkRecalculatePreorderCounts } from "../../variants/actions/bulk-recalculate-counts.ts";
import { releaseOrder } from "./release.ts";
import { exportBalanceCollection, exportByOffer } from "../../reports/actions/export.ts";
import { REPORT_READ_ACTIONS } from "../../reports/actions/reads.ts";
import { reportCatalogAction } from "../../../core/report-catalog.ts";
import { refundOrder } from "./refund.ts";
import { addOrderTags, removeOrderTags, setOrderTags } from "./tags.ts";

/** The preorder reports, in the order the catalog lists them: the JSON reads, then the CSV exports. */
const PREORDER_REPORT_ACTIONS: readonly AnyAction[] = [...REPORT_READ_ACTIONS, exportByOffer, exportBalanceCollection];

const preorderReportCatalog = reportCatalogAction({
  name: "preorders.reports.list",
  path: "/preorders/reports",
  area: "preorder",
  aliases: ["list the preorder reports", "which preorder reports are there"],
  reports: () => PREORDER_REPORT_ACTIONS,
});

/** Actions of this part of the API (orders, preorder counts, report exports); the registry lists them from here (src/action-registry.ts). */
export const PREORDERS_ORDERS_ACTIONS: readonly AnyAction[] = [
  listOrders,
  getOrder,
  releaseOrder,
  cancelOrder,
  chargeBalance,
  bulkRelease,
  bulkCancel,
  bulkSetTags,
  bulkSendPaymentCollectionUrl,
  bulkRecalculatePreorderCounts,
  exportBalanceCollection,
  exportByOffer,
  refundOrder,
  setOrderTags,
  addOrderTags,
  removeOrderTags,
  ...REPORT_READ_ACTIONS,
  preorderReportCatalog,
];
