import { z } from "zod";
import type { Db } from "../core/db.ts";
import { defineDocument } from "../core/settings-document.ts";

/**
 * Shop-wide settings, only those something reads:
 * - store_name: the shop's name (shops.name): `shop.name` in every template and the default From
 *   name of e-mails;
 * - contact_email: the default Reply-To of the shop's e-mails (when sending.reply_to is unset).
 * store_name lives in shops.name, where templates already read it; contact_email in
 * account_settings.settings.
 */

const EMAIL = /^[^\s@<>",;()[\]\\]+@[^\s@<>",;()[\]\\]+\.[^\s@<>",;()[\]\\]+$/;

/** An e-mail address as a sender or Reply-To may carry it: one plain addr-spec, no display name. */
export const emailAddress = z
  .string({ error: "must be an e-mail address" })
  .max(254, "must be at most 254 characters")
  .regex(EMAIL, "must be an e-mail address")
  .meta({ examples: ["hello@shop.example"] });

export const accountSettingsSchema = z.strictObject({
  store_name: z
    .string({ error: "must be a string" })
    .min(1)
    .max(200)
    .regex(/\S/, "must not be blank")
    .regex(/^[^\r\n]*$/, "must not contain line breaks")
    .describe("The store's name: shop.name in templates, and the From name of e-mails unless sending.sender_name is set"),
  contact_email: emailAddress
    .nullable()
    .describe("Where customers' replies go (Reply-To of e-mails) unless sending.reply_to is set; null: no Reply-To"),
});

type AccountSettings = z.output<typeof accountSettingsSchema>;

/** The stored part: contact_email only (store_name is the shop's name column). */
const storedSchema = z.strictObject({ contact_email: accountSettingsSchema.shape.contact_email });
const storedDocument = defineDocument({
  table: "account_settings",
  column: "settings",
  label: "account settings",
  schema: storedSchema,
  defaults: { contact_email: null },
});

export const accountSettingsPatchSchema = z.strictObject({
  store_name: accountSettingsSchema.shape.store_name.optional(),
  contact_email: accountSettingsSchema.shape.contact_email.optional(),
});

async function shopName(db: Db, shopId: string, lock = false): Promise<string> {
  const { rows } = await db.query<{ name: string }>(`select name from shops where id = $1 ${lock ? "for update" : ""}`, [shopId]);
  const row = rows[0];
  if (!row) throw new Error(`shop ${shopId} of an authenticated key is missing`);
  return row.name;
}

export async function loadAccountSettings(db: Db, shopId: string): Promise<AccountSettings> {
  const stored = await storedDocument.load(db, shopId);
  return { store_name: await shopName(db, shopId), contact_email: stored.contact_email };
}

export async function updateAccountSettings(db: Db, shopId: string, patch: z.output<typeof accountSettingsPatchSchema>): Promise<AccountSettings> {
  let name = await shopName(db, shopId, true);
  if (patch.store_name !== undefined) {
    await db.query("update shops set name = $2, updated_at = now() where id = $1", [shopId, patch.store_name]);
    name = patch.store_name;
  }
  const stored =
    patch.contact_email !== undefined
      ? await storedDocument.patch(db, shopId, { contact_email: patch.contact_email })
      : await storedDocument.load(db, shopId);
  return { store_name: name, contact_email: stored.contact_email };
}
