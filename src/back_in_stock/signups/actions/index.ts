import type { AnyAction } from "../../../core/action.ts";
import { bulkDeleteSignups } from "./bulk-delete.ts";
import { copilot } from "../../actions/copilot.ts";
import { createSignup } from "./create.ts";
import { deleteSignup } from "./delete.ts";
import { getSignup, listSignups } from "./list.ts";
import { listNotifications } from "../../alerts/actions/notifications.ts";
import { BACK_IN_STOCK_REPORT_ACTIONS, backInStockReportCatalog } from "../../reports/actions/reports.ts";
import { getBackInStockSettings, patchBackInStockSettings } from "../../settings/actions/settings.ts";
import { transferSignup } from "./transfer.ts";
import { unsubscribeSignupAction } from "./unsubscribe.ts";

/** Actions of this part of the API; the registry lists them from here (src/action-registry.ts). */
export const BACK_IN_STOCK_SIGNUPS_ACTIONS: readonly AnyAction[] = [
  createSignup,
  listSignups,
  getSignup,
  deleteSignup,
  bulkDeleteSignups,
  transferSignup,
  unsubscribeSignupAction,
  getBackInStockSettings,
  patchBackInStockSettings,
  listNotifications,
  ...BACK_IN_STOCK_REPORT_ACTIONS,
  backInStockReportCatalog,
  copilot,
];
