import { z } from "zod";

/** Building blocks shared by action schemas; their messages follow the field name (see validation.ts). */
export const hexColor = z
  .string({ error: "must be a hex color" })
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, "must be a hex color")
  .meta({ format: "hex-color", examples: ["#1a2b3c"] });

export const isoTimestamp = z.iso.datetime({ offset: true, error: "must be an ISO 8601 timestamp" });

export const locale = z
  .string({ error: "must be a locale" })
  .regex(/^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/, "must be a locale")
  .meta({ examples: ["en", "fr", "pt-BR"] });

export const uuid = (what: string) => z.string().uuid({ error: `must be a valid ${what} id` });

/** Query strings carry text: accept the words true and false for a boolean flag. */
export const queryBoolean = z.enum(["true", "false"]).transform((v) => v === "true");

const BLANK = "must not be blank";

/**
 * Required text that must say something: whitespace alone is refused as blank (the pattern shows
 * in the JSON Schema too). An empty string keeps min(1)'s own message; the value is not trimmed.
 */
export function notBlank<T extends z.ZodString>(text: T): T {
  return text.min(1).regex(/\S/, BLANK);
}
