import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { accountSettingsPatchSchema, accountSettingsSchema, loadAccountSettings, updateAccountSettings } from "../settings.ts";

const FIELDS =
  "store_name (the store's name: shop.name in every template, and the From name of e-mails unless sending.sender_name is set) and contact_email (the Reply-To of the shop's e-mails unless sending.reply_to is set; null: none)";

export const getAccountSettings = defineAction({
  name: "account.settings.get",
  method: "GET",
  path: "/account/settings",
  description: `Shop-wide settings: ${FIELDS}.`,
  aliases: ["show the store name", "read the shop wide settings"],
  kind: "read",
  input: z.strictObject({}),
  output: accountSettingsSchema,
  async handler(ctx) {
    return loadAccountSettings(ctx.db, ctx.shopId);
  },
});

export const patchAccountSettings = defineAction({
  name: "account.settings.update",
  method: "PATCH",
  path: "/account/settings",
  description: `Changes shop-wide settings (partial: only the keys sent change): ${FIELDS}. Answers the complete settings.`,
  notes: ["store_name cannot be null or blank; contact_email null removes it.", "A new store name applies to messages rendered after the change."],
  aliases: ["rename the store", "set the store contact email"],
  kind: "write",
  input: accountSettingsPatchSchema,
  output: accountSettingsSchema,
  async handler(ctx, { input }) {
    return updateAccountSettings(ctx.db, ctx.shopId, input);
  },
});
