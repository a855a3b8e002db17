import { z } from "zod";
import type { Db } from "../../core/db.ts";
import { ApiError, unprocessable } from "../../core/errors.ts";
import { defineDocument } from "../../core/settings-document.ts";
import { enqueueShopConfigSync } from "../../storefront/enqueue.ts";

/**
 * Back-in-stock settings of a shop: one settings document (bis_settings.settings) over
 * DEFAULT_BACK_IN_STOCK_SETTINGS. The alert pipeline reads them with `loadBackInStockSettings`.
 */

const enabledSwitch = z.strictObject({ enabled: z.boolean() });

export const backInStockSettingsSchema = z.strictObject({
  channels: z.strictObject({
    email: enabledSwitch.describe("E-mail alerts and e-mail signups"),
    sms: enabledSwitch.describe("Text-message alerts and text-message signups"),
  }),
  delivery: z.strictObject({
    batch_multiplier: z
      .number()
      .min(1)
      .max(100)
      .describe("A batch alerts at most batch_multiplier x available units signups (oldest first)"),
    batch_interval_seconds: z.int().min(0).max(86_400).describe("Seconds between two batches of one alert run"),
    minimum_restock_quantity: z.int().min(1).max(1_000_000).describe("Alerts start, and go on, only while available stock is at least this"),
    reminder_delay_hours: z.int().min(1).max(2_160).describe("Hours after the initial alert before the reminder (when that stage is enabled)"),
  }),
  compliance: z.strictObject({
    opt_in_required: z.boolean().describe("When true a signup needs consent: true"),
  }),
  tagging: z.strictObject({
    enabled: z.boolean().describe("Add customer_tag to the platform customer at signup (when the signup carries a customer_id)"),
    customer_tag: z.string().trim().min(1).max(255),
  }),
  attribution: z.strictObject({
    window_days: z.int().min(1).max(365).describe("An order within this many days after an alert converts the signup"),
  }),
});

export type BackInStockSettings = z.output<typeof backInStockSettingsSchema>;

export const DEFAULT_BACK_IN_STOCK_SETTINGS: BackInStockSettings = {
  channels: { email: { enabled: true }, sms: { enabled: true } },
  delivery: { batch_multiplier: 1, batch_interval_seconds: 300, minimum_restock_quantity: 1, reminder_delay_hours: 48 },
  compliance: { opt_in_required: false },
  tagging: { enabled: false, customer_tag: "back-in-stock" },
  attribution: { window_days: 7 },
};

type Json = Record<string, unknown>;

/** The whole document; its PATCH body refuses null, as no setting is nullable: `<field> must be a <type>`. */
export const backInStockSettingsDocument = defineDocument({
  table: "bis_settings",
  column: "settings",
  label: "back-in-stock settings",
  schema: backInStockSettingsSchema,
  defaults: DEFAULT_BACK_IN_STOCK_SETTINGS,
  // channels and compliance.opt_in_required shape the storefront's signup form: they reach it
  // through the shop's storefront configuration metafield.
  afterPatch: async (db, shopId, patch) => {
    if (patch.channels !== undefined || patch.compliance !== undefined) await enqueueShopConfigSync(db, shopId);
  },
});

/** The shop's back-in-stock settings, complete and typed: what the merchant set over the defaults. */
export function loadBackInStockSettings(db: Db, shopId: string): Promise<BackInStockSettings> {
  return backInStockSettingsDocument.load(db, shopId);
}

/** Applies a deep-partial patch in the caller's transaction (422 and nothing saved when the merged whole is invalid). */
export function updateBackInStockSettings(db: Db, shopId: string, patch: Json): Promise<BackInStockSettings> {
  return backInStockSettingsDocument.patch(db, shopId, patch);
}

/** The groups of the settings document, each with its own GET and PATCH. */
export const BACK_IN_STOCK_SETTINGS_GROUPS = ["channels", "delivery", "compliance", "tagging", "attribution"] as const;
export type BackInStockSettingsGroup = (typeof BACK_IN_STOCK_SETTINGS_GROUPS)[number];

/** A group's schema (its part of the whole document). */
export function settingsGroupSchema(group: BackInStockSettingsGroup) {
  return backInStockSettingsSchema.shape[group];
}

/**
 * Applies a deep-partial patch of one group, validated on the merged whole like the full PATCH
 * (cross-field rules included). A 422 names the fields as the group's body does (`sms.enabled`),
 * and a field of another group that a cross-field rule names keeps its full path.
 */
export async function updateBackInStockSettingsGroup(db: Db, shopId: string, group: BackInStockSettingsGroup, patch: Json): Promise<BackInStockSettings> {
  try {
    return await updateBackInStockSettings(db, shopId, { [group]: patch });
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "UNPROCESSABLE") throw error;
    const prefix = `${group}.`;
    throw unprocessable(error.issues.map((i) => (i.path === group ? { ...i, path: "" } : i.path.startsWith(prefix) ? { ...i, path: i.path.slice(prefix.length) } : i)));
  }
}
