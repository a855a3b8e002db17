import { z } from "zod";
import type { Db } from "../core/db.ts";
import { fallbackLocales } from "../core/locales.ts";
import { unprocessable } from "../core/errors.ts";
import { enqueueShopConfigSync } from "../storefront/enqueue.ts";

/**
 * Storefront strings: the back-in-stock signup widget's labels and messages, per locale. Shipped
 * defaults for a few languages; a merchant's overrides are stored per locale (account_translations)
 * and win key by key. A locale without shipped strings falls back to its language, then the shop's
 * default locale, then en, the way the back-in-stock templates do. The storefront widget reads
 * every locale's strings from the shop's storefront configuration metafield (src/storefront/,
 * decision 0203); GET /account/translations/{locale} answers one locale's.
 */

export const TRANSLATION_KEYS = [
  "widget.button_text",
  "widget.form_title",
  "widget.form_description",
  "widget.email_placeholder",
  "widget.phone_placeholder",
  "widget.submit_button",
  "widget.consent_label",
  "widget.success_message",
  "widget.already_subscribed_message",
  "widget.error_message",
  "widget.invalid_email_message",
  "widget.invalid_phone_message",
] as const;

export type TranslationKey = (typeof TRANSLATION_KEYS)[number];
export type Strings = Record<TranslationKey, string>;

export const SHIPPED_TRANSLATIONS: Record<string, Strings> = {
  en: {
    "widget.button_text": "Notify me when available",
    "widget.form_title": "Get notified",
    "widget.form_description": "We will let you know as soon as this item is back in stock.",
    "widget.email_placeholder": "Your e-mail address",
    "widget.phone_placeholder": "Your phone number",
    "widget.submit_button": "Notify me",
    "widget.consent_label": "I agree to receive a message when this item is back in stock.",
    "widget.success_message": "Thank you! We will notify you when this item is back in stock.",
    "widget.already_subscribed_message": "You are already on the list for this item.",
    "widget.error_message": "Something went wrong. Please try again.",
    "widget.invalid_email_message": "Please enter a valid e-mail address.",
    "widget.invalid_phone_message": "Please enter a valid phone number.",
  },
  fr: {
    "widget.button_text": "Me prévenir du retour en stock",
    "widget.form_title": "Être prévenu",
    "widget.form_description": "Nous vous préviendrons dès que cet article sera de nouveau disponible.",
    "widget.email_placeholder": "Votre adresse e-mail",
    "widget.phone_placeholder": "Votre numéro de téléphone",
    "widget.submit_button": "Me prévenir",
    "widget.consent_label": "J'accepte de recevoir un message quand cet article sera de retour.",
    "widget.success_message": "Merci ! Nous vous préviendrons du retour de cet article.",
    "widget.already_subscribed_message": "Vous êtes déjà inscrit pour cet article.",
    "widget.error_message": "Une erreur est survenue. Veuillez réessayer.",
    "widget.invalid_email_message": "Veuillez saisir une adresse e-mail valide.",
    "widget.invalid_phone_message": "Veuillez saisir un numéro de téléphone valide.",
  },
  de: {
    "widget.button_text": "Benachrichtigen, wenn verfügbar",
    "widget.form_title": "Benachrichtigung erhalten",
    "widget.form_description": "Wir informieren Sie, sobald dieser Artikel wieder auf Lager ist.",
    "widget.email_placeholder": "Ihre E-Mail-Adresse",
    "widget.phone_placeholder": "Ihre Telefonnummer",
    "widget.submit_button": "Benachrichtigen",
    "widget.consent_label": "Ich möchte eine Nachricht erhalten, wenn dieser Artikel wieder da ist.",
    "widget.success_message": "Danke! Wir benachrichtigen Sie, sobald der Artikel wieder da ist.",
    "widget.already_subscribed_message": "Sie stehen für diesen Artikel bereits auf der Liste.",
    "widget.error_message": "Etwas ist schiefgelaufen. Bitte versuchen Sie es erneut.",
    "widget.invalid_email_message": "Bitte geben Sie eine gültige E-Mail-Adresse ein.",
    "widget.invalid_phone_message": "Bitte geben Sie eine gültige Telefonnummer ein.",
  },
  es: {
    "widget.button_text": "Avisarme cuando esté disponible",
    "widget.form_title": "Recibir aviso",
    "widget.form_description": "Te avisaremos en cuanto este artículo vuelva a estar disponible.",
    "widget.email_placeholder": "Tu correo electrónico",
    "widget.phone_placeholder": "Tu número de teléfono",
    "widget.submit_button": "Avisarme",
    "widget.consent_label": "Acepto recibir un mensaje cuando este artículo vuelva a estar disponible.",
    "widget.success_message": "¡Gracias! Te avisaremos cuando este artículo vuelva.",
    "widget.already_subscribed_message": "Ya estás en la lista para este artículo.",
    "widget.error_message": "Algo salió mal. Inténtalo de nuevo.",
    "widget.invalid_email_message": "Introduce un correo electrónico válido.",
    "widget.invalid_phone_message": "Introduce un número de teléfono válido.",
  },
};

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
