import { fieldIssue } from "../../../core/errors.ts";
import { z } from "zod";
import { hexColor } from "../../../core/schemas.ts";
import { sets } from "../../../core/deep-partial.ts";
import { cssLength, defineGroup, label, timestamp } from "../model.ts";
import { countdownOutput } from "../outputs.ts";

export const COUNTDOWN_MODES = ["to_schedule_end", "to_custom_date"] as const;
export const COUNTDOWN_STYLES = ["inline", "banner", "boxed"] as const;

const UNIT_ORDER = "dhms";

/** `dd:hh:mm:ss` and its shorter forms: units d, h, m, s (one or two letters each) in that order, colon separated. */
const countdownFormat = z
  .string({ error: "must be a pattern of units such as dd:hh:mm:ss" })
  .refine((value) => {
    const parts = value.split(":");
    let last = -1;
    for (const part of parts) {
      if (!/^(?:d{1,2}|h{1,2}|m{1,2}|s{1,2})$/.test(part)) return false;
      const position = UNIT_ORDER.indexOf(part[0] ?? "");
      if (position <= last) return false;
      last = position;
    }
    return true;
  }, "must be a pattern of units such as dd:hh:mm:ss")
  .meta({ examples: ["dd:hh:mm:ss", "d:h:m", "hh:mm"] });

/** A countdown on the product page: to the end of the preorder period, or to a date of its own. */
const countdownSchema = z.strictObject({
  enabled: z.boolean().default(false),
  mode: z.enum(COUNTDOWN_MODES).default("to_schedule_end"),
  format: countdownFormat.default("dd:hh:mm:ss"),
  text: label.default("Preorder ends in"),
  // the end of a to_custom_date countdown; null in the other mode
  custom_end_date: timestamp.nullable().default(null),
  style: z
    .strictObject({
      type: z.enum(COUNTDOWN_STYLES).default("inline"),
      text_color: hexColor.default("#000000"),
      background_color: hexColor.default("#ffffff"),
      border_radius: cssLength.default("4px"),
    })
    .prefault({}),
});

export const countdownGroup = defineGroup({
  key: "countdown",
  schema: countdownSchema,
  output: countdownOutput,
  normalize(next, patch) {
    if (next.mode !== "to_custom_date" && next.custom_end_date !== null) {
      if (sets(patch, "custom_end_date")) return [fieldIssue("custom_end_date", "is not allowed unless mode is to_custom_date")];
      next.custom_end_date = null;
    }
    return [];
  },
  rules(value) {
    if (value.enabled && value.mode === "to_custom_date" && value.custom_end_date === null) {
      return [fieldIssue("custom_end_date", "is required when the countdown is enabled with mode to_custom_date")];
    }
    return [];
  },
});
