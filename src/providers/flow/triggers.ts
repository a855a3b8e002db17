/**
 * The events the app can send to the store platform's automation (Flow) as triggers, each the
 * handle of one of the app's trigger extensions: the event's name with hyphens (a handle is at most
 * 30 letters, digits and hyphens). A leaf module: the integrations settings and the areas that
 * fire events both read it.
 */
export const FLOW_TRIGGERS = [
  "back_in_stock_signup_created",
  "back_in_stock_alert_sent",
  "back_in_stock_reminder_sent",
  "back_in_stock_signup_converted",
  "preorder_order_placed",
  "preorder_balance_due",
] as const;

export type FlowTrigger = (typeof FLOW_TRIGGERS)[number];

/** The trigger extension's handle of an event. */
export function flowHandle(trigger: FlowTrigger): string {
  return trigger.replaceAll("_", "-");
}
