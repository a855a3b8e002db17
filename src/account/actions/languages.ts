import { z } from "zod";
import { type ActionContext, defineAction } from "../../core/action.ts";
import type { Db } from "../../core/db.ts";
import { conflict } from "../../core/errors.ts";
import { locale } from "../../core/schemas.ts";
import { getAccessScopes } from "../../platform/operations/app.ts";
import { enqueueShopConfigSync } from "../../storefront/enqueue.ts";

const languagesOutput = z.strictObject({
  default_locale: z.string().describe("language of alerts and the signup widget"),
  app_locale: z.string().describe("language of the merchant dashboard"),
  multi_language_enabled: z.boolean().describe("on: messages are in each customer's locale; off: all in default_locale"),
  product_translations_enabled: z.boolean().describe("use the platform's translated product titles"),
  published_locales: z.array(z.string()).optional().describe("locales published on the store platform; present only while multi_language_enabled"),
});

interface LanguagesRow {
  default_locale: string;
  app_locale: string;
  multi_language_enabled: boolean;
  product_translations_enabled: boolean;
  published_locales: string[];
}

const READ_TRANSLATIONS = "read_translations";

async function loadLanguages(db: Db, shopId: string, lock = false): Promise<LanguagesRow> {
  const { rows } = await db.query<LanguagesRow>(
    `select default_locale, app_locale, multi_language_enabled, product_translations_enabled, published_locales
     from shops where id = $1 ${lock ? "for update" : ""}`,
    [shopId],
  );
  const row = rows[0];
  if (!row) throw new Error(`shop ${shopId} of an authenticated key is missing`);
  return row;
}

function present(row: LanguagesRow): Record<string, unknown> {
  return {
    default_locale: row.default_locale,
    app_locale: row.app_locale,
    multi_language_enabled: row.multi_language_enabled,
    product_translations_enabled: row.product_translations_enabled,
    // Published locales only mean something while the store sells in several languages.
    ...(row.multi_language_enabled ? { published_locales: row.published_locales } : {}),
  };
}

/**
 * The access scopes the merchant granted the app, as the store platform says now
 * (currentAppInstallation): read_translations can be granted or revoked there at any time.
 */
async function platformScopes(ctx: ActionContext): Promise<string[]> {
  const { rows } = await ctx.db.query<{ connected: boolean }>(
    "select platform_graphql_url is not null and platform_access_token is not null as connected from shops where id = $1",
    [ctx.shopId],
  );
  if (!rows[0]?.connected) throw conflict("product_translations_enabled needs the read_translations access on the store platform, and the shop is not connected to it");
  try {
    const runtime = await ctx.services.platform();
    return await getAccessScopes(await runtime.clientFor(ctx.pool, ctx.shopId));
  } catch (error) {
    ctx.log.warn({ err: error }, "the app's access scopes could not be read");
    throw conflict(`the read_translations access could not be checked on the store platform (${error instanceof Error ? error.message : String(error)}); try again`);
  }
}

export const getLanguages = defineAction({
  name: "account.languages.get",
  method: "GET",
  path: "/account/languages",
  description:
    "Language settings: default_locale (language of alerts and the signup widget), app_locale (dashboard language), multi_language_enabled, product_translations_enabled and, when multi-language is on, the locales published on the store platform.",
  aliases: ["read the language settings", "which languages does the store use"],
  output: languagesOutput,
  kind: "read",
  input: z.strictObject({}),
  async handler(ctx) {
    return present(await loadLanguages(ctx.db, ctx.shopId));
  },
});

export const patchLanguages = defineAction({
  name: "account.languages.update",
  method: "PATCH",
  path: "/account/languages",
  description:
    "Changes language settings. app_locale changes only the merchant dashboard. multi_language_enabled decides the language of every message: on, back-in-stock alerts and preorder notifications are written in the customer's locale (its template, else its language's, else default_locale's); off, all in default_locale. multi_language_enabled: false also turns product_translations_enabled off. product_translations_enabled: true needs the read_translations access on the store platform and fails (409) until it is granted.",
  notes: [
    "Only the fields sent change; the answer is the whole language settings after the change.",
    "product_translations_enabled: true is 409 while multi-language is (or becomes) off, and until the read_translations access is granted.",
    "default_locale and published_locales are not edited here: they come from the store platform.",
  ],
  aliases: ["change the dashboard language", "turn on multi language support", "enable translated product titles"],
  output: languagesOutput,
  kind: "write",
  input: z.strictObject({
    app_locale: locale.optional(),
    multi_language_enabled: z.boolean().optional(),
    product_translations_enabled: z.boolean().optional(),
  }),
  async handler(ctx, { input }) {
    // Asked before the row is locked: the platform's answer may take a while.
    const scopes = input.product_translations_enabled === true ? await platformScopes(ctx) : undefined;
    const current = await loadLanguages(ctx.db, ctx.shopId, true);
    const multi = input.multi_language_enabled ?? current.multi_language_enabled;
    let translations = input.product_translations_enabled ?? current.product_translations_enabled;
    if (scopes !== undefined) {
      if (!multi) throw conflict("product_translations_enabled needs multi_language_enabled; turn multi-language on first");
      if (!scopes.includes(READ_TRANSLATIONS)) {
        throw conflict("product_translations_enabled needs the read_translations access; grant it to the app on the store platform first");
      }
    }
    if (!multi) translations = false;
    const { rows } = await ctx.db.query<LanguagesRow>(
      `update shops set app_locale = $2, multi_language_enabled = $3, product_translations_enabled = $4, updated_at = now()
       where id = $1
       returning default_locale, app_locale, multi_language_enabled, product_translations_enabled, published_locales`,
      [ctx.shopId, input.app_locale ?? current.app_locale, multi, translations],
    );
    const row = rows[0];
    if (!row) throw new Error("shop update returned no row");
    // The widget's languages come from the shop's storefront configuration metafield.
    if (row.multi_language_enabled !== current.multi_language_enabled || row.product_translations_enabled !== current.product_translations_enabled) {
      await enqueueShopConfigSync(ctx.db, ctx.shopId);
    }
    return present(row);
  },
});
