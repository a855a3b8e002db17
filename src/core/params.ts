import { z } from "zod";

/**
 * Ids and query parameters as every action takes them: one parser each, so that the same id or
 * parameter is accepted, refused and worded the same way in every area. Messages follow the
 * field name (see validation.ts).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a path parameter can be one of our ids at all: a malformed id is an unknown id (404),
 * and it must not reach a `uuid` column, where PostgreSQL would refuse it.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** `gid://shopify/<Type>/<n>` for the platform's numeric id (number or digits); anything else stays as it is. */
export function platformGid(type: string, value: string | number): string {
  const text = String(value).trim();
  return /^\d+$/.test(text) ? `gid://shopify/${type}/${text}` : text;
}

/**
 * A platform id as clients give it: its number (JSON number or digits, as a query string carries
 * it) or its gid; always the gid afterwards.
 */
export function platformId(type: string) {
  const pattern = new RegExp(`^(?:gid://shopify/${type}/)?([1-9][0-9]{0,18})$`);
  const message = `must be a numeric id or a gid://shopify/${type}/<id>`;
  return z
    .union([z.string(), z.int().positive()], { error: message })
    .transform((value, ctx) => {
      const digits = pattern.exec(String(value).trim())?.[1];
      if (digits === undefined) {
        ctx.addIssue({ code: "custom", message, input: value });
        return z.NEVER;
      }
      return `gid://shopify/${type}/${digits}`;
    })
    .meta({ examples: [`gid://shopify/${type}/1001`, 1001] });
}

/** An integer in a JSON body: a string, a boolean or null is not one (no coercion): `must be an integer`. */
export const jsonInt = () => z.int({ error: (issue) => (issue.code === "invalid_type" ? "must be an integer" : undefined) });

/** A positive integer in a JSON body, at most `max` when given. */
export const positiveJsonInt = (max?: number) => (max === undefined ? jsonInt().min(1) : jsonInt().min(1).max(max));

/** A query-string integer in [min, max] (`must be an integer`, `must be at least <min>`, `must be at most <max>`). */
export const queryInt = (min: number, max: number) =>
  z
    .string({ error: "must be an integer" })
    .regex(/^\d{1,9}$/, "must be an integer")
    .transform(Number)
    .pipe(z.int().min(min).max(max));

/**
 * A list in a query string: `ids=1,2,3`, `ids=1&ids=2`, or both; blanks dropped. Each item is
 * checked by `item` at its index (`variant_ids.2 must be ...`).
 */
export function queryList<O>(item: z.ZodType<O, string> | z.ZodType<O, string | number>, limits: { min?: number; max: number }) {
  // The items arrive as text; an item schema that also takes numbers (platformId) takes text too.
  const items = z.array(item as z.ZodType<O, string>).min(limits.min ?? 0).max(limits.max);
  return z
    .union([z.string(), z.array(z.string())])
    .transform((value) =>
      (Array.isArray(value) ? value : [value])
        .flatMap((part) => part.split(","))
        .map((part) => part.trim())
        .filter((part) => part !== ""),
    )
    .pipe(items);
}
