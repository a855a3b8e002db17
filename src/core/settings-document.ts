import { z } from "zod";
import { type ActionContext, type AnyAction, defineAction } from "./action.ts";
import type { Db } from "./db.ts";
import { deepPartialStrict, isPlainObject, mergeDeep } from "./deep-partial.ts";
import { type Issue, issueText, unprocessable } from "./errors.ts";
import { formatIssues } from "./validation.ts";

/**
 * A shop's settings document: one JSON column of a one-row-per-shop table, stored deep-partial
 * (only what the merchant set) and read merged over defaults from code, so a default changed in
 * code reaches every shop that never set the field. The account's sending and e-mail layout, the
 * preorder settings and developer settings, and the back-in-stock settings are each one.
 */

type Json = Record<string, unknown>;

/** The tables that hold settings documents, and their columns (one row per shop, created on the first write). */
interface DocumentTables {
  account_settings: "settings" | "sending" | "email_layout";
  preorder_shop_settings: "settings" | "developer_settings";
  bis_settings: "settings" | "alerts";
}

/** Rules across fields a PATCH must also pass (the merged document, and the patch as sent): one issue per field. */
export type DocumentCheck<T> = (merged: T, patch: Json) => Issue[] | Promise<Issue[]>;

export interface SettingsDocument<T extends Json> {
  /** What the document is called in an error about it: "back-in-stock settings". */
  readonly label: string;
  readonly schema: z.ZodType<T>;
  readonly defaults: T;
  /** The PATCH body's schema: every key optional at every level, unknown keys and null (where not nullable) refused. */
  readonly patchSchema: z.ZodType<Json, Json>;
  /** The document, complete: the stored part over the defaults. Throws when the stored part no longer validates (only an edit outside the API can do that). */
  load(db: Db, shopId: string): Promise<T>;
  /** What the merchant set (deep-partial), for "customized" flags. */
  stored(db: Db, shopId: string): Promise<Json>;
  /**
   * Applies a deep-partial patch (shape-checked by patchSchema) in the caller's transaction: the
   * merged result must validate as a whole, and `check` find nothing, or nothing is saved (422,
   * one message per field). Answers the complete document.
   */
  patch(db: Db, shopId: string, patch: Json, check?: DocumentCheck<T>): Promise<T>;
}

export interface DocumentSpec<T extends Json, Table extends keyof DocumentTables> {
  table: Table;
  column: DocumentTables[Table];
  label: string;
  schema: z.ZodType<T>;
  defaults: T;
  /**
   * Runs in the patch's transaction after it is saved, with the patch as sent: what the change
   * sets in motion is enqueued there (the shop's storefront configuration write), so a rolled-back
   * change queues nothing.
   */
  afterPatch?: (db: Db, shopId: string, patch: Json) => Promise<void>;
}

export function defineDocument<T extends Json, Table extends keyof DocumentTables>(spec: DocumentSpec<T, Table>): SettingsDocument<T> {
  const { table, column, label, schema, defaults, afterPatch } = spec;
  const read = async (db: Db, shopId: string, lock: boolean): Promise<Json> => {
    const { rows } = await db.query<{ doc: unknown }>(`select ${column} as doc from ${table} where shop_id = $1 ${lock ? "for update" : ""}`, [shopId]);
    const doc = rows[0]?.doc;
    return isPlainObject(doc) ? doc : {};
  };
  return {
    label,
    schema,
    defaults,
    patchSchema: deepPartialStrict(schema) as z.ZodType<Json, Json>,
    async load(db, shopId) {
      const parsed = schema.safeParse(mergeDeep(defaults, await read(db, shopId, false), schema));
      if (!parsed.success) throw new Error(`${label} of shop ${shopId} are invalid: ${formatIssues(parsed.error.issues).map(issueText).join("; ")}`);
      return parsed.data;
    },
    stored(db, shopId) {
      return read(db, shopId, false);
    },
    async patch(db, shopId, patch, check) {
      await db.query(`insert into ${table} (shop_id) values ($1) on conflict (shop_id) do nothing`, [shopId]);
      const next = mergeDeep(await read(db, shopId, true), patch, schema) as Json;
      const parsed = schema.safeParse(mergeDeep(defaults, next, schema), { reportInput: true });
      if (!parsed.success) throw unprocessable(formatIssues(parsed.error.issues));
      const issues = (await check?.(parsed.data, patch)) ?? [];
      if (issues.length > 0) throw unprocessable(issues);
      await db.query(`update ${table} set ${column} = $2, updated_at = now() where shop_id = $1`, [shopId, JSON.stringify(next)]);
      await afterPatch?.(db, shopId, patch);
      return parsed.data;
    },
  };
}

interface DocumentActionText {
  description: string;
  aliases: string[];
  notes?: string[];
}

export interface DocumentActionsSpec<T extends Json> {
  /** `preorders.settings`: the pair is `<name>.get` and `<name>.update`. */
  name: string;
  path: string;
  get: DocumentActionText;
  update: DocumentActionText;
  /** Rules across fields, which may depend on the service's configuration. */
  check?: (ctx: ActionContext) => DocumentCheck<T>;
}

/** The GET and the deep-partial PATCH of a document, both answering it complete. */
export function documentActions<T extends Json>(doc: SettingsDocument<T>, spec: DocumentActionsSpec<T>): [AnyAction, AnyAction] {
  return [
    defineAction({
      name: `${spec.name}.get`,
      method: "GET",
      path: spec.path,
      ...spec.get,
      kind: "read",
      input: z.strictObject({}),
      output: doc.schema,
      async handler(ctx) {
        return doc.load(ctx.db, ctx.shopId);
      },
    }),
    defineAction({
      name: `${spec.name}.update`,
      method: "PATCH",
      path: spec.path,
      ...spec.update,
      kind: "write",
      input: doc.patchSchema,
      output: doc.schema,
      async handler(ctx, { input }) {
        return doc.patch(ctx.db, ctx.shopId, input, spec.check?.(ctx));
      },
    }),
  ];
}
