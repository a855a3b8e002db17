/**
 * Why a message was not sent, in every area: one vocabulary, one text each (the notifications
 * logs' blocked_reason, notify's 409). Each area refuses for the reasons that apply to it
 * (BackInStockBlockedReason, PreorderBlockedReason).
 */
export const BLOCKED_REASON_TEXT = {
  stage_disabled: "the stage is switched off",
  channel_disabled: "its channel is switched off in the settings",
  unsubscribed: "the customer unsubscribed",
  opt_in_missing: "opt-in is required and the customer gave no consent",
  out_of_stock: "the variant is out of stock",
  plan_limit: "the plan's monthly message quota is used up",
  no_recipient: "the order has no e-mail address or phone number",
  order_cancelled: "the order is cancelled or refunded",
  balance_paid: "the balance is already paid",
} as const;

export type BlockedReason = keyof typeof BLOCKED_REASON_TEXT;
export const BLOCKED_REASONS = Object.keys(BLOCKED_REASON_TEXT) as BlockedReason[];

export type BackInStockBlockedReason = Extract<BlockedReason, "unsubscribed" | "channel_disabled" | "stage_disabled" | "opt_in_missing" | "out_of_stock" | "plan_limit">;
export type PreorderBlockedReason = Extract<BlockedReason, "stage_disabled" | "channel_disabled" | "no_recipient" | "order_cancelled" | "balance_paid">;
