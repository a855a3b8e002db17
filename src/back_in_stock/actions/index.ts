import type { AnyAction } from "../../core/action.ts";
import { getNotification } from "../alerts/actions/notifications.ts";
import { getBackInStockOrder, listBackInStockOrders } from "../reports/actions/orders.ts";
import { getBackInStockProduct, listBackInStockProducts } from "../reports/actions/products.ts";
import { getBackInStockAlertSettings, patchBackInStockAlertSettings } from "../settings/actions/alerts.ts";
import { BACK_IN_STOCK_SETTINGS_GROUP_ACTIONS } from "../settings/actions/settings.ts";

/** Back in stock: orders, products, notifications, settings by group, alert settings. */
export const BACK_IN_STOCK_ACTIONS: readonly AnyAction[] = [
  listBackInStockOrders,
  getBackInStockOrder,
  listBackInStockProducts,
  getBackInStockProduct,
  getNotification,
  ...BACK_IN_STOCK_SETTINGS_GROUP_ACTIONS,
  getBackInStockAlertSettings,
  patchBackInStockAlertSettings,
];
