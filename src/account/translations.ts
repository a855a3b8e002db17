import { z } from "zod";
import type { Db } from "../core/db.ts";
import { fallbackLocales } from "../core/locales.ts";
import { unprocessable } from "../core/errors.ts";
import { enqueueShopConfigSync } from "../storefront/enqueue.ts";
import { SHIPPED_TRANSLATIONS, type Strings, TRANSLATION_KEYS, type TranslationKey } from "./shipped-translations.ts";

export { SHIPPED_TRANSLATIONS, TRANSLATION_KEYS };
export type { Strings, TranslationKey };

/**
 * Storefront strings: the back-in-stock signup widget's labels and messages, per locale. Shipped
 * defaults for a few languages; a merchant's overrides are stored per locale (account_translations)
 * and win key by key. A locale without shipped strings falls back to its language, then the shop's
 * default locale, then en, the way the back-in-stock templates do. The storefront widget reads
 * every locale's strings from the shop's storefront configuration metafield (src/storefront/,
 * decision 0203); GET /account/translations/{locale} answers one locale's.
 */

export const MAX_STRING_LENGTH = 500;

/** PATCH body: `strings`, each key a text (1-500 characters, not blank) or null to go back to the shipped text. */
export const translationsPatchSchema = z.strictObject({
  strings: z.strictObject(
    Object.fromEntries(
      TRANSLATION_KEYS.map((key) => [key, z.string().min(1).max(MAX_STRING_LENGTH).regex(/\S/, "must not be blank").nullable().optional()]),
    ) as Record<TranslationKey, z.ZodOptional<z.ZodNullable<z.ZodString>>>,
  ),
});

function shippedFor(requested: string, shopDefault: string): { locale: string; strings: Strings } {
  const locale = fallbackLocales(requested, shopDefault).find((l) => SHIPPED_TRANSLATIONS[l] !== undefined) ?? "en";
  return { locale, strings: SHIPPED_TRANSLATIONS[locale] ?? (SHIPPED_TRANSLATIONS.en as Strings) };
}

async function shopDefaultLocale(db: Db, shopId: string): Promise<string> {
  const { rows } = await db.query<{ default_locale: string }>("select default_locale from shops where id = $1", [shopId]);
  return rows[0]?.default_locale ?? "en";
}

async function overrides(db: Db, shopId: string, locale: string, lock = false): Promise<Partial<Strings>> {
  const { rows } = await db.query<{ strings: Partial<Strings> }>(
    `select strings from account_translations where shop_id = $1 and locale = $2 ${lock ? "for update" : ""}`,
    [shopId, locale],
  );
  return rows[0]?.strings ?? {};
}

interface LocaleTranslations {
  locale: string;
  /** Where the texts not overridden come from. */
  default_locale: string;
  strings: Strings;
  customized: Record<TranslationKey, boolean>;
}

function present(locale: string, shopDefault: string, own: Partial<Strings>): LocaleTranslations {
  const shipped = shippedFor(locale, shopDefault);
  const strings = {} as Strings;
  const customized = {} as Record<TranslationKey, boolean>;
  for (const key of TRANSLATION_KEYS) {
    const value = own[key];
    strings[key] = value ?? shipped.strings[key];
    customized[key] = value !== undefined;
  }
  return { locale, default_locale: shipped.locale, strings, customized };
}

export async function loadTranslations(db: Db, shopId: string, locale: string): Promise<LocaleTranslations> {
  return present(locale, await shopDefaultLocale(db, shopId), await overrides(db, shopId, locale));
}

export async function updateTranslations(db: Db, shopId: string, locale: string, patch: z.output<typeof translationsPatchSchema>): Promise<LocaleTranslations> {
  if (Object.keys(patch.strings).length === 0) throw unprocessable([{ path: "strings", message: "must contain at least one key" }]);
  await db.query("insert into account_translations (shop_id, locale) values ($1, $2) on conflict (shop_id, locale) do nothing", [shopId, locale]);
  const own: Partial<Strings> = { ...(await overrides(db, shopId, locale, true)) };
  for (const [key, value] of Object.entries(patch.strings) as [TranslationKey, string | null | undefined][]) {
    if (value === undefined) continue;
    if (value === null) delete own[key];
    else own[key] = value;
  }
  if (Object.keys(own).length === 0) await db.query("delete from account_translations where shop_id = $1 and locale = $2", [shopId, locale]);
  else await db.query("update account_translations set strings = $3, updated_at = now() where shop_id = $1 and locale = $2", [shopId, locale, JSON.stringify(own)]);
  // The widget's labels come from the shop's storefront configuration metafield.
  await enqueueShopConfigSync(db, shopId);
  return present(locale, await shopDefaultLocale(db, shopId), own);
}

interface LocaleSummary {
  locale: string;
  shipped: boolean;
  customized_count: number;
}

/** The locales with shipped strings or the merchant's, and the shop's default. */
export async function listTranslationLocales(db: Db, shopId: string): Promise<{ default_locale: string; keys: string[]; locales: LocaleSummary[] }> {
  const shopDefault = await shopDefaultLocale(db, shopId);
  const { rows } = await db.query<{ locale: string; n: number }>(
    "select locale, (select count(*) from jsonb_object_keys(strings))::int as n from account_translations where shop_id = $1",
    [shopId],
  );
  const counts = new Map(rows.map((r) => [r.locale, r.n]));
  const locales = [...new Set([...Object.keys(SHIPPED_TRANSLATIONS), ...counts.keys()])].sort();
  return {
    default_locale: shopDefault,
    keys: [...TRANSLATION_KEYS],
    locales: locales.map((locale) => ({ locale, shipped: SHIPPED_TRANSLATIONS[locale] !== undefined, customized_count: counts.get(locale) ?? 0 })),
  };
}

/**
 * Every locale's strings, complete (each key the merchant's text or the shipped one, as GET
 * /account/translations/{locale} answers it): the locales with shipped texts, those the merchant
 * customized, and `extra` (the shop's default and published locales). One read of the overrides.
 */
export async function loadAllTranslationStrings(db: Db, shopId: string, extra: readonly string[]): Promise<Record<string, Strings>> {
  const shopDefault = await shopDefaultLocale(db, shopId);
  const { rows } = await db.query<{ locale: string; strings: Partial<Strings> }>("select locale, strings from account_translations where shop_id = $1", [shopId]);
  const own = new Map(rows.map((r) => [r.locale, r.strings]));
  const locales = [...new Set([...Object.keys(SHIPPED_TRANSLATIONS), ...own.keys(), shopDefault, ...extra])].sort();
  return Object.fromEntries(locales.map((locale) => [locale, present(locale, shopDefault, own.get(locale) ?? {}).strings]));
}
