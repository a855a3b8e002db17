import type { AnyAction } from "../../../core/action.ts";
import { bulkNotifySignups } from "./bulk-notify.ts";
import { notifySignup } from "./notify.ts";

/** Actions of this part of the API; the registry lists them from here (src/actions/index.ts). */
export const BACK_IN_STOCK_ALERTS_ACTIONS: readonly AnyAction[] = [notifySignup, bulkNotifySignups];
