import type { z } from "zod";
import type { Db } from "../core/db.ts";
import { deepPartialStrict, isPlainObject, mergeDeep } from "../core/deep-partial.ts";
import { issueText, unprocessable } from "../core/errors.ts";
import { formatIssues } from "../core/validation.ts";

/**
 * The account-wide documents of a shop (account_settings.settings, .sending, .email_layout): each
 * stored deep-partial (only what the merchant set) and read merged over its shipped defaults, the
 * way the back-in-stock settings are. One row per shop, created on the first write.
 */

type DocumentColumn = "settings" | "sending" | "email_layout";
type Json = Record<string, unknown>;

interface AccountDocument<T extends Json> {
  column: DocumentColumn;
  schema: z.ZodType<T>;
  defaults: T;
  /** The PATCH body's schema: every key optional at every level, unknown keys refused. */
  patchSchema: z.ZodType<Json, Json>;
}

export function accountDocument<T extends Json>(column: DocumentColumn, schema: z.ZodType<T>, defaults: T): AccountDocument<T> {
  return { column, schema, defaults, patchSchema: deepPartialStrict(schema) as z.ZodType<Json, Json> };
}

async function stored(db: Db, shopId: string, column: DocumentColumn, lock: boolean): Promise<Json> {
  const { rows } = await db.query<{ doc: unknown }>(`select ${column} as doc from account_settings where shop_id = $1 ${lock ? "for update" : ""}`, [shopId]);
  const doc = rows[0]?.doc;
  return isPlainObject(doc) ? doc : {};
}

/** What the merchant set of the document (deep-partial), for "customized" flags. */
export async function storedDocument(db: Db, shopId: string, doc: AccountDocument<Json>): Promise<Json> {
  return stored(db, shopId, doc.column, false);
}

/** The document, complete: the stored part over the defaults. */
export async function loadDocument<T extends Json>(db: Db, shopId: string, doc: AccountDocument<T>): Promise<T> {
  const merged = mergeDeep(doc.defaults, await stored(db, shopId, doc.column, false), doc.schema);
  const parsed = doc.schema.safeParse(merged);
  if (!parsed.success) throw new Error(`account ${doc.column} of shop ${shopId} are invalid: ${formatIssues(parsed.error.issues).map(issueText).join("; ")}`);
  return parsed.data;
}

/**
 * Applies a deep-partial patch (shape-checked by patchSchema) in the caller's transaction: the
 * merged result must validate, and `check` (rules across fields, template checks) must find
 * nothing, or nothing is saved (422, one message per field). Answers the complete document.
 */
export async function updateDocument<T extends Json>(
  db: Db,
  shopId: string,
  doc: AccountDocument<T>,
  patch: Json,
  check?: (merged: T, patch: Json) => { path: string; message: string }[] | Promise<{ path: string; message: string }[]>,
): Promise<T> {
  await db.query("insert into account_settings (shop_id) values ($1) on conflict (shop_id) do nothing", [shopId]);
  const next = mergeDeep(await stored(db, shopId, doc.column, true), patch, doc.schema) as Json;
  const parsed = doc.schema.safeParse(mergeDeep(doc.defaults, next, doc.schema), { reportInput: true });
  if (!parsed.success) throw unprocessable(formatIssues(parsed.error.issues));
  const issues = (await check?.(parsed.data, patch)) ?? [];
  if (issues.length > 0) throw unprocessable(issues);
  await db.query(`update account_settings set ${doc.column} = $2, updated_at = now() where shop_id = $1`, [shopId, JSON.stringify(next)]);
  return parsed.data;
}
