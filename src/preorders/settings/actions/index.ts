import type { AnyAction } from "../../../core/action.ts";
import { DEVELOPER_SETTINGS_ACTIONS } from "./developer-settings.ts";
import { PREORDER_NOTIFICATION_ACTIONS } from "../../notifications/actions/notifications.ts";
import { PREORDER_SETTINGS_ACTIONS } from "./settings.ts";
import { PREORDER_TEMPLATE_ACTIONS } from "../../notifications/actions/templates.ts";
import { WEBHOOK_EVENT_ACTIONS } from "./webhook-events.ts";

/** Preorders, shop-wide: settings, developer settings, notifications, templates. */
export const PREORDERS_SHOP_ACTIONS: readonly AnyAction[] = [
  ...PREORDER_SETTINGS_ACTIONS,
  ...DEVELOPER_SETTINGS_ACTIONS,
  ...WEBHOOK_EVENT_ACTIONS,
  ...PREORDER_NOTIFICATION_ACTIONS,
  ...PREORDER_TEMPLATE_ACTIONS,
];
