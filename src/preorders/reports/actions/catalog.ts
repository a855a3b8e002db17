import type { AnyAction } from "../../../core/action.ts";
import { reportCatalogAction } from "../../../core/report-catalog.ts";
import { exportBalanceCollection, exportByOffer } from "./export.ts";
import { REPORT_READ_ACTIONS } from "./reads.ts";

/** The preorder reports, in the order the catalog lists them: the JSON reads, then the CSV exports. */
const PREORDER_REPORT_ACTIONS: readonly AnyAction[] = [...REPORT_READ_ACTIONS, exportByOffer, exportBalanceCollection];

export const preorderReportCatalog = reportCatalogAction({
  name: "preorders.reports.list",
  path: "/preorders/reports",
  area: "preorder",
  aliases: ["list the preorder reports", "which preorder reports are there"],
  reports: PREORDER_REPORT_ACTIONS,
});
