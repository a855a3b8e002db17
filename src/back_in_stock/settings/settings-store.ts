import { z } from "zod";
import type { Db } from "../../core/db.ts";
import { deepPartialStrict, mergeDeep } from "../../core/deep-partial.ts";
import { ApiError, issueText, unprocessable } from "../../core/errors.ts";
import { formatIssues } from "../../core/validation.ts";

/**
 * Back-in-stock settings of a shop: one document stored deep-partial in `bis_settings.settings`
 * (only what the merchant set), read merged over DEFAULT_BACK_IN_STOCK_SETTINGS. The alert
 * pipeline reads them with `loadBackInStockSettings`.
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

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The PATCH body's schema, derived from the full one by the deep-partial helper every PATCH uses:
 * every key optional at every level, unknown keys refused, and `null` refused as for any field
 * that is not nullable (none of these is): `<field> must be a <type>`.
 */
export const backInStockSettingsPatchSchema = deepPartialStrict(backInStockSettingsSchema) as z.ZodType<Json, Json>;

/** The stored partial document laid over the defaults (defaults first, so every key exists). */
function withDefaults(stored: Json): Json {
  return mergeDeep(DEFAULT_BACK_IN_STOCK_SETTINGS, stored, backInStockSettingsSchema) as Json;
}

async function storedSettings(db: Db, shopId: string, lock: boolean): Promise<Json> {
  const { rows } = await db.query<{ settings: unknown }>(`select settings from bis_settings where shop_id = $1 ${lock ? "for update" : ""}`, [shopId]);
  const stored = rows[0]?.settings;
  return isObject(stored) ? stored : {};
}

/**
 * The shop's back-in-stock settings, complete and typed: what the merchant set over the
 * defaults. Throws if the stored document does not validate (only possible by editing it
 * outside the API).
 */
export async function loadBackInStockSettings(db: Db, shopId: string): Promise<BackInStockSettings> {
  const parsed = backInStockSettingsSchema.safeParse(withDefaults(await storedSettings(db, shopId, false)));
  if (!parsed.success) throw new Error(`back-in-stock settings of shop ${shopId} are invalid: ${formatIssues(parsed.error.issues).map(issueText).join("; ")}`);
  return parsed.data;
}

/**
 * Applies a deep-partial patch (already shape-checked) in the caller's transaction: the merged
 * result, defaults included, must validate or nothing is saved (422, one message per field).
 */
export async function updateBackInStockSettings(db: Db, shopId: string, patch: Json): Promise<BackInStockSettings> {
  await db.query("insert into bis_settings (shop_id) values ($1) on conflict (shop_id) do nothing", [shopId]);
  const stored = mergeDeep(await storedSettings(db, shopId, true), patch, backInStockSettingsSchema) as Json;
  const parsed = backInStockSettingsSchema.safeParse(withDefaults(stored), { reportInput: true });
  if (!parsed.success) throw unprocessable(formatIssues(parsed.error.issues));
  await db.query("update bis_settings set settings = $2, updated_at = now() where shop_id = $1", [shopId, JSON.stringify(stored)]);
  return parsed.data;
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
