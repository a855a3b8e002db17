import type { AnyAction } from "../../../core/action.ts";
import { bulkCancel, bulkRelease, bulkSendPaymentCollectionUrl, bulkSetTags } from "./bulk.ts";
import { cancelOrder } from "./cancel.ts";
import { chargeBalance } from "./charge-balance.ts";
import { getOrder } from "./get.ts";
import { listOrders } from "./list.ts";
import { bulkRecalculatePreorderCounts } from "../../variants/actions/bulk-recalculate-counts.ts";
import { releaseOrder } from "./release.ts";
import { REPORT_READ_EXPORT_ACTIONS, exportBalanceCollection, exportByOffer } from "../../reports/actions/export.ts";
import { REPORT_READ_ACTIONS } from "../../reports/actions/reads.ts";
import { preorderReportCatalog } from "../../reports/actions/catalog.ts";
import { refundOrder } from "./refund.ts";
import { addOrderTags, removeOrderTags, setOrderTags } from "./tags.ts";

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
  ...REPORT_READ_EXPORT_ACTIONS,
  preorderReportCatalog,
];
