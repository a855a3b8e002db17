import type { AnyAction } from "../../../core/action.ts";

/** Actions of this part of the API; the registry lists them from here (src/actions/index.ts). */
export const PREORDERS_ORDERS_ACTIONS: readonly AnyAction[] = [];
