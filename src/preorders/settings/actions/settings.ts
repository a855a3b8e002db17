import type { AnyAction } from "../../../core/action.ts";
import { documentActions } from "../../../core/settings-document.ts";
import { DEFAULT_PREORDER_SETTINGS, preorderSettingsDocument } from "../settings.ts";

const d = DEFAULT_PREORDER_SETTINGS;

const FIELDS = `orders.tags (array of at most 50 tags, each at most 40 characters without commas, default []: added to every preorder order as it arrives, beside its offers' checkout.order_tags, and pushed to the platform order); \
orders.auto_collect_enabled (default ${String(d.orders.auto_collect_enabled)}: false stops every automatic balance charge, checked when the charge is due); \
notifications.email.enabled, notifications.sms.enabled (default ${String(d.notifications.email.enabled)}, ${String(d.notifications.sms.enabled)}: the channels preorder customers are told on; a text message needs a phone on the order); \
notifications.balance_due.days_before (integer 0-60, default ${d.notifications.balance_due.days_before}: the balance_due message goes out this many days before the balance is due or auto-collected); \
storefront.show_badge_on_collection_pages, storefront.show_badge_on_product_pages, storefront.hide_dynamic_checkout_buttons (default true: served to the storefront script by GET /preorders/developer_settings/storefront_config); \
offer_defaults.button_text, offer_defaults.order_tags, offer_defaults.auto_collect, offer_defaults.balance_due_days (default null each: what POST /preorders/offers puts in widget.button.text, checkout.order_tags.tags, payments.remaining_balance.auto_collect and payments.remaining_balance.due (days after checkout) when its body leaves them out; null: the offer's own default)`;

export const PREORDER_SETTINGS_ACTIONS: readonly AnyAction[] = documentActions(preorderSettingsDocument, {
  name: "preorders.settings",
  path: "/preorders/settings",
  get: {
    aliases: ["read shop wide preorder settings", "show preorder order tags and auto collect settings", "which preorder notifications are switched on"],
    description: `Shop-wide preorder settings, complete: what the merchant set over the defaults. ${FIELDS}.`,
  },
  update: {
    aliases: ["change shop wide preorder settings", "tag every preorder order", "turn off automatic balance collection for the shop"],
    description: `Changes shop-wide preorder settings (deep partial: only the keys sent change; arrays are replaced whole; null is refused). The merged result is validated as a whole and nothing is saved if any field is invalid (422, one message per field). Answers the complete settings. ${FIELDS}.`,
    notes: [
      "New order tags apply to orders that arrive (or change) afterwards; existing orders are not retagged.",
      "Turning notifications.sms on only reaches orders that carry a phone number.",
      "offer_defaults apply to offers created afterwards; existing offers keep their settings. A field the create body sends wins over its default.",
    ],
  },
});
