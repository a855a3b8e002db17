import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { unprocessable } from "../../core/errors.ts";
import { locale } from "../../core/schemas.ts";
import { shopStorefrontSize } from "../../storefront/size.ts";
import {
  MAX_STRING_LENGTH,
  SHIPPED_TRANSLATIONS,
  TRANSLATION_KEYS,
  listTranslationLocales,
  loadTranslations,
  translationsPatchSchema,
  updateTranslations,
} from "../translations.ts";

const keyed = <T extends z.ZodType>(value: T) => z.strictObject(Object.fromEntries(TRANSLATION_KEYS.map((k) => [k, value])) as Record<(typeof TRANSLATION_KEYS)[number], T>);

const localeOutput = z.strictObject({
  locale: z.string(),
  default_locale: z.string().describe("the locale whose shipped texts fill the keys not customized"),
  strings: keyed(z.string()),
  customized: keyed(z.boolean()).describe("true for a key the merchant set for this locale"),
});

const SHIPPED = Object.keys(SHIPPED_TRANSLATIONS).join(", ");

export const listTranslations = defineAction({
  name: "account.translations.list",
  method: "GET",
  path: "/account/translations",
  description: `The storefront translations (the back-in-stock signup widget's labels and messages): default_locale (the shop's), keys (every string the widget shows), and locales: each with shipped (the service ships its texts: ${SHIPPED}) and customized_count (keys the merchant set).`,
  aliases: ["list storefront translation locales", "which languages does the signup widget have"],
  kind: "read",
  input: z.strictObject({}),
  output: z.strictObject({
    default_locale: z.string(),
    keys: z.array(z.string()),
    locales: z.array(z.strictObject({ locale: z.string(), shipped: z.boolean(), customized_count: z.int().min(0) })),
  }),
  async handler(ctx) {
    return listTranslationLocales(ctx.db, ctx.shopId);
  },
});

export const getTranslations = defineAction({
  name: "account.translations.get",
  method: "GET",
  path: "/account/translations/{locale}",
  description: `The storefront strings of a locale, as the signup widget shows them: strings (every key), customized (per key), and default_locale: where the keys not customized come from (the locale's shipped texts, else its language's, the shop's default locale's, then en).`,
  aliases: ["show the signup widget texts for a language", "read storefront translations"],
  kind: "read",
  params: z.object({ locale }),
  input: z.strictObject({}),
  output: localeOutput,
  async handler(ctx, { params }) {
    return loadTranslations(ctx.db, ctx.shopId, params.locale);
  },
});

export const patchTranslations = defineAction({
  name: "account.translations.update",
  method: "PATCH",
  path: "/account/translations/{locale}",
  description: `Changes storefront strings of a locale: strings, an object of key to text (1 to ${MAX_STRING_LENGTH} characters) or null (back to the shipped text). Keys not sent keep their value. Answers the locale's strings as GET does.`,
  notes: ["An unknown key is refused (422 'strings.<key> is not allowed'); GET /account/translations lists the keys."],
  aliases: ["translate the signup widget", "change the notify me button text", "customize storefront strings"],
  kind: "write",
  params: z.object({ locale }),
  input: translationsPatchSchema,
  output: localeOutput,
  async handler(ctx, { params, input }) {
    const answer = await updateTranslations(ctx.db, ctx.shopId, params.locale, input);
    // Every locale's strings go to the storefront in one metafield, which has a size limit.
    const issues = await shopStorefrontSize(ctx.db, ctx.shopId, "strings");
    if (issues.length > 0) throw unprocessable(issues);
    return answer;
  },
});
