import type { z } from "zod";
import type { Db } from "../../core/db.ts";
import { mergeDeep } from "../../core/deep-partial.ts";
import { issueText, unprocessable } from "../../core/errors.ts";
import { formatIssues } from "../../core/validation.ts";

/**
 * Shop-wide preorder documents, one row per shop in preorder_shop_settings: `settings` (GET/PATCH
 * /preorders/settings) and `developer_settings` (GET/PATCH /preorders/developer_settings). Each is
 * stored deep-partial (only what the merchant set) and read merged over its defaults, so a default
 * changed in code reaches every shop that never set the field.
 */

type SettingsColumn = "settings" | "developer_settings";
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

async function stored(db: Db, shopId: string, column: SettingsColumn, lock: boolean): Promise<Json> {
  const { rows } = await db.query<{ value: unknown }>(`select ${column} as value from preorder_shop_settings where shop_id = $1 ${lock ? "for update" : ""}`, [shopId]);
  const value = rows[0]?.value;
  return isObject(value) ? value : {};
}

/** The document, complete: what the merchant set over `defaults`. Throws when the stored part no longer validates. */
export async function loadDocument<S extends z.ZodType<Json>>(db: Db, shopId: string, column: SettingsColumn, schema: S, defaults: z.output<S>): Promise<z.output<S>> {
  const parsed = schema.safeParse(mergeDeep(defaults, await stored(db, shopId, column, false), schema));
  if (!parsed.success) throw new Error(`preorder ${column} of shop ${shopId} are invalid: ${formatIssues(parsed.error.issues).map(issueText).join("; ")}`);
  return parsed.data;
}

/**
 * Applies a deep-partial patch (already shape-checked) in the caller's transaction: the merged
 * result must validate as a whole or nothing is saved (422, one message per field).
 */
export async function updateDocument<S extends z.ZodType<Json>>(
  db: Db,
  shopId: string,
  column: SettingsColumn,
  schema: S,
  defaults: z.output<S>,
  patch: Json,
): Promise<z.output<S>> {
  await db.query("insert into preorder_shop_settings (shop_id) values ($1) on conflict (shop_id) do nothing", [shopId]);
  const next = mergeDeep(await stored(db, shopId, column, true), patch, schema) as Json;
  const parsed = schema.safeParse(mergeDeep(defaults, next, schema), { reportInput: true });
  if (!parsed.success) throw unprocessable(formatIssues(parsed.error.issues));
  await db.query(`update preorder_shop_settings set ${column} = $2, updated_at = now() where shop_id = $1`, [shopId, JSON.stringify(next)]);
  return parsed.data;
}
