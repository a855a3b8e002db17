import type { AnyAction } from "../../../core/action.ts";

/** Preorders, shop-wide: settings, developer settings, notifications, templates. */
export const PREORDERS_SHOP_ACTIONS: readonly AnyAction[] = [];
