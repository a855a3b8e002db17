import { z } from "zod";

/** Request building blocks of the orders and reports actions; messages follow the field name. */

/** An ISO 8601 date (`2026-11-01`, a whole UTC day) or timestamp with an offset. */
export const dateOrTimestamp = z
  .string({ error: "must be an ISO 8601 date or timestamp" })
  .refine((v) => z.iso.date().safeParse(v).success || z.iso.datetime({ offset: true }).safeParse(v).success, {
    message: "must be an ISO 8601 date or timestamp",
  })
  .meta({ examples: ["2026-11-01", "2026-11-01T00:00:00Z"] });

const isDate = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v);

/** The instant a `from` bound starts at (a date: its midnight UTC). */
export function lowerBound(value: string | undefined): string | null {
  if (value === undefined) return null;
  return isDate(value) ? `${value}T00:00:00Z` : new Date(value).toISOString();
}

/** The instant an inclusive `to` bound ends before (a date: the next midnight UTC, exclusive). */
export function upperBoundExclusive(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (isDate(value)) {
    const next = new Date(`${value}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    return next.toISOString();
  }
  return new Date(new Date(value).getTime() + 1).toISOString();
}

/** A positive integer, from a query string or JSON. */
export const positiveInt = (max?: number) => {
  const base = z.coerce
    .number({ error: (issue) => (issue.code === "invalid_type" ? "must be an integer" : undefined) })
    .int({ error: "must be an integer" })
    .min(1);
  return max === undefined ? base : base.max(max);
};

export const ISO_4217 = z
  .string({ error: "must be an ISO 4217 currency code" })
  .regex(/^[A-Z]{3}$/, "must be an ISO 4217 currency code")
  .meta({ examples: ["USD", "EUR"] });

/** Offers are identified by their UUID. */
export const offerId = z.uuid({ error: "must be an offer id (a UUID)" });
