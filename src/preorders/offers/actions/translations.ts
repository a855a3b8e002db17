import type { AnyAction } from "../../../core/action.ts";
import { TRANSLATABLE_FIELDS, translationsGroup } from "../groups/translations.ts";
import { groupGetAction, groupPatchAction } from "../model.ts";

export const TRANSLATIONS_ACTIONS: readonly AnyAction[] = [
  groupGetAction(
    translationsGroup,
    "The offer's translations: default_locale (language of its own texts), locales (translated into), fields (translated field paths such as widget.button.text) and translations (locale -> field path -> text).",
    { aliases: ["show the preorder offer translations", "read the translated preorder texts"] },
  ),
  groupPatchAction(
    translationsGroup,
    `Changes translations: default_locale, locales and fields (each replaced whole), translations (merged per locale and field; null removes one). fields are paths among: ${TRANSLATABLE_FIELDS.join(", ")}.`,
    {
      aliases: ["translate the preorder button text", "update the preorder offer translations", "add a language to a preorder offer"],
      notes: [
        "A translation's locale must be in locales and its field in fields.",
        "locales must not include default_locale.",
        "Dropping a locale or a field drops its translations; null in translations removes one.",
      ],
    },
  ),
];
