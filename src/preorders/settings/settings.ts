import { z } from "zod";
import { jsonInt } from "../../core/params.ts";
import type { Db } from "../../core/db.ts";
import { defineDocument } from "../../core/settings-document.ts";
import { LIMITS, platformTag, requiredLabel } from "../offers/model.ts";
import { enqueueShopConfigSync } from "../../storefront/enqueue.ts";

/**
 * Shop-wide preorder settings. Each one is read by something:
 * - orders.tags: ingestion adds them to every preorder order (beside its offers' checkout.order_tags);
 * - orders.auto_collect_enabled: the auto-collect job charges only while it is true (checked at run time);
 * - notifications.email / notifications.sms: the notification sender blocks a channel that is off;
 * - notifications.balance_due.days_before: when the balance_due message goes out;
 * - storefront.*: served to the storefront script by GET /preorders/developer_settings/storefront_config
 *   and written to the shop's storefront configuration metafield (src/storefront/, decision 0203);
 * - offer_defaults.*: applied by POST /preorders/offers to what its body leaves out (offer-defaults.ts).
 */

/** A platform tag: no commas (the platform joins tags with them), at most 40 characters. */
const orderTag = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[^,]+$/, "must not contain a comma");

const enabledSwitch = z.strictObject({ enabled: z.boolean() });

export const preorderSettingsSchema = z.strictObject({
  orders: z.strictObject({
    tags: z.array(orderTag).max(50).describe("Tags added to every ingested preorder order (and pushed to the platform order), beside its offers' checkout.order_tags"),
    auto_collect_enabled: z
      .boolean()
      .describe("Shop-wide switch of automatic balance collection: false stops every scheduled auto-collect charge (offers keep their own setting)"),
  }),
  notifications: z.strictObject({
    email: enabledSwitch.describe("E-mail notifications to preorder customers"),
    sms: enabledSwitch.describe("Text messages to preorder customers whose order has a phone number"),
    balance_due: z.strictObject({
      days_before: z.int().min(0).max(60).describe("Days before the balance is due (or auto-collected) that the balance_due message goes out"),
    }),
  }),
  offer_defaults: z
    .strictObject({
      button_text: requiredLabel.nullable().describe("widget.button.text of a new offer (null: the offer's own default, Preorder)"),
      order_tags: z
        .array(platformTag)
        .max(LIMITS.tags)
        .nullable()
        .describe("checkout.order_tags.tags of a new offer (null: the offer's own default, [\"preorder\"])"),
      auto_collect: z
        .boolean()
        .nullable()
        .describe("payments.remaining_balance.auto_collect of a new offer (null: the offer's own default, false)"),
      balance_due_days: jsonInt()
        .min(0)
        .max(365)
        .nullable()
        .describe("payments.remaining_balance.due of a new offer: due this many days after checkout (null: the offer's own default, 30)"),
    })
    .describe("Values a new offer (POST /preorders/offers) takes where its body leaves them out; null: the offer's own default"),
  storefront: z.strictObject({
    show_badge_on_collection_pages: z.boolean().describe("Show the preorder badge on product cards of collection pages"),
    show_badge_on_product_pages: z.boolean().describe("Show the preorder badge on product pages"),
    hide_dynamic_checkout_buttons: z.boolean().describe("Hide the platform's buy-now buttons on preorder products (they skip the preorder terms)"),
  }),
});

export type PreorderSettings = z.output<typeof preorderSettingsSchema>;

export const DEFAULT_PREORDER_SETTINGS: PreorderSettings = {
  orders: { tags: [], auto_collect_enabled: true },
  notifications: { email: { enabled: true }, sms: { enabled: false }, balance_due: { days_before: 3 } },
  offer_defaults: { button_text: null, order_tags: null, auto_collect: null, balance_due_days: null },
  storefront: { show_badge_on_collection_pages: true, show_badge_on_product_pages: true, hide_dynamic_checkout_buttons: true },
};

/** GET/PATCH /preorders/settings: preorder_shop_settings.settings. */
export const preorderSettingsDocument = defineDocument({
  table: "preorder_shop_settings",
  column: "settings",
  label: "preorder settings",
  schema: preorderSettingsSchema,
  defaults: DEFAULT_PREORDER_SETTINGS,
  // storefront.* reaches the widget through the shop's storefront configuration metafield.
  afterPatch: async (db, shopId, patch) => {
    if (patch.storefront !== undefined) await enqueueShopConfigSync(db, shopId);
  },
});

export function loadPreorderSettings(db: Db, shopId: string): Promise<PreorderSettings> {
  return preorderSettingsDocument.load(db, shopId);
}
