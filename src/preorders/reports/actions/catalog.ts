import type { AnyAction } from "../../../core/action.ts";
import { reportCatalogAction } from "../../../core/report-catalog.ts";
import { REPORT_READ_EXPORT_ACTIONS, exportBalanceCollection, exportByOffer } from "./export.ts";
import { REPORT_READ_ACTIONS } from "./reads.ts";

/**
 * The preorder reports, in the order the catalog lists them: each JSON read followed by its CSV
 * export (the same report key), then the exports that have no read (by_offer, balance_collection).
 */
const PREORDER_REPORT_ACTIONS: readonly AnyAction[] = [
  ...REPORT_READ_ACTIONS.flatMap((read) => [read, ...REPORT_READ_EXPORT_ACTIONS.filter((exported) => exported.path === `${read.path}/export`)]),
  exportByOffer,
  exportBalanceCollection,
];

export const preorderReportCatalog = reportCatalogAction({
  name: "preorders.reports.list",
  path: "/preorders/reports",
  area: "preorder",
  aliases: ["list the preorder reports", "which preorder reports are there"],
  reports: PREORDER_REPORT_ACTIONS,
});
