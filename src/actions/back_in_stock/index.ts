import type { AnyAction } from "../../core/action.ts";
import { getNotification } from "./notifications.ts";
import { getBackInStockOrder, listBackInStockOrders } from "./orders.ts";
import { getBackInStockProduct, listBackInStockProducts } from "./products.ts";
import { BACK_IN_STOCK_SETTINGS_GROUP_ACTIONS } from "./settings.ts";

/** Back in stock: orders, products, notifications, settings by group. */
export const BACK_IN_STOCK_ACTIONS: readonly AnyAction[] = [
  listBackInStockOrders,
  getBackInStockOrder,
  listBackInStockProducts,
  getBackInStockProduct,
  getNotification,
  ...BACK_IN_STOCK_SETTINGS_GROUP_ACTIONS,
];
