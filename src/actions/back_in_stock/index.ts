import type { AnyAction } from "../../core/action.ts";

/** Back in stock: orders, products, notifications, settings by group. */
export const BACK_IN_STOCK_ACTIONS: readonly AnyAction[] = [];
