import { type Issue, fieldIssue } from "../../../core/errors.ts";
import { z } from "zod";
import { locale } from "../../../core/schemas.ts";
import { isPlainObject, sets } from "../../../core/deep-partial.ts";
import { defineGroup, longText } from "../model.ts";
import { translationsOutput } from "../outputs.ts";

/** The offer's texts that can be translated, by their path in the offer. */
export const TRANSLATABLE_FIELDS = [
  "widget.button.text",
  "widget.badge.text",
  "widget.disclaimer.text",
  "shipping.display.shipping_text",
  "limits.display.quantity_limit_text",
  "checkout.terms.text",
  "checkout.mixed_cart.error_message",
  "countdown.text",
  "advanced.button_text_overrides.before_launch",
  "advanced.button_text_overrides.after_launch",
  "advanced.button_text_overrides.out_of_stock",
] as const;

/** Translations of the offer's storefront texts: per locale, per field path. */
const translationsSchema = z.strictObject({
  // the language the offer's own texts are written in
  default_locale: locale.default("en"),
  // the other locales the texts are translated into
  locales: z.array(locale).max(50).default(() => []),
  fields: z.array(z.enum(TRANSLATABLE_FIELDS)).default(() => []),
  // locale -> field path -> text; in a PATCH, null removes a locale's or a field's translation
  translations: z.record(z.string(), z.record(z.string(), longText)).default(() => ({})),
});

export const translationsGroup = defineGroup({
  key: "translations",
  schema: translationsSchema,
  output: translationsOutput,
  normalize(next, patch) {
    next.locales = [...new Set(next.locales)];
    next.fields = [...new Set(next.fields)];
    // Translations of a locale or field dropped from the lists go with it, unless sent in this request.
    const sentTranslations = isPlainObject(patch.translations) ? patch.translations : {};
    for (const [loc, texts] of Object.entries(next.translations)) {
      if (!next.locales.includes(loc) && sets(patch, "locales") && !(loc in sentTranslations)) {
        delete next.translations[loc];
        continue;
      }
      const sentTexts = sentTranslations[loc];
      for (const field of Object.keys(texts)) {
        const sentField = isPlainObject(sentTexts) && field in sentTexts;
        if (!(next.fields as string[]).includes(field) && sets(patch, "fields") && !sentField) delete texts[field];
      }
      if (Object.keys(texts).length === 0) delete next.translations[loc];
    }
    return [];
  },
  rules(value) {
    const violations: Issue[] = [];
    value.locales.forEach((loc, index) => {
      if (loc === value.default_locale) violations.push(fieldIssue(`locales.${index}`, `must not be the default_locale (${loc})`));
    });
    for (const [loc, texts] of Object.entries(value.translations)) {
      if (!value.locales.includes(loc)) {
        violations.push(fieldIssue(`translations.${loc}`, `must be one of the locales: ${value.locales.join(", ") || "(none)"}`));
        continue;
      }
      for (const field of Object.keys(texts)) {
        if (!(value.fields as string[]).includes(field)) {
          violations.push(fieldIssue(`translations.${loc}.${field}`, `must be one of the fields: ${value.fields.join(", ") || "(none)"}`));
        }
      }
    }
    return violations;
  },
});
