import { z } from "zod";

/** Request building blocks of the orders and reports actions; messages follow the field name. */

// PostgreSQL has no year 0: an instant before this would fail the query rather than match nothing.
const EARLIEST = Date.parse("0001-01-01T00:00:00Z");

/** An ISO 8601 date (`2026-11-01`, a whole UTC day) or timestamp with an offset. */
export const dateOrTimestamp = z
  .string({ error: "must be an ISO 8601 date or timestamp" })
  .refine((v) => (z.iso.date().safeParse(v).success || z.iso.datetime({ offset: true }).safeParse(v).success) && Date.parse(v) >= EARLIEST, {
    message: "must be an ISO 8601 date or timestamp",
  })
  .meta({ examples: ["2026-11-01", "2026-11-01T00:00:00Z"] });

const isDate = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v);

/**
 * An instant as PostgreSQL reads it: JavaScript writes years past 9999 as `+010000`, which
 * PostgreSQL takes for a zone offset (the exclusive end of `9999-12-31` is in year 10000).
 */
function toTimestamptz(instant: Date): string {
  return instant.toISOString().replace(/^\+0*/, "");
}

/** The instant a `from` bound starts at (a date: its midnight UTC). */
export function lowerInstant(value: string): Date {
  return new Date(isDate(value) ? `${value}T00:00:00Z` : value);
}

/** The instant an inclusive `to` bound ends before (a date: the next midnight UTC, exclusive). */
export function upperInstantExclusive(value: string): Date {
  if (isDate(value)) {
    const next = new Date(`${value}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    return next;
  }
  return new Date(new Date(value).getTime() + 1);
}

/** `lowerInstant` as a query parameter. */
export function lowerBound(value: string | undefined): string | null {
  return value === undefined ? null : toTimestamptz(lowerInstant(value));
}

/** `upperInstantExclusive` as a query parameter. */
export function upperBoundExclusive(value: string | undefined): string | null {
  return value === undefined ? null : toTimestamptz(upperInstantExclusive(value));
}

/** A positive integer in a JSON body: a string, a boolean or null is not one (no coercion). */
export const positiveJsonInt = (max?: number) => {
  const base = z.int({ error: (issue) => (issue.code === "invalid_type" ? "must be an integer" : undefined) }).min(1);
  return max === undefined ? base : base.max(max);
};

/** A positive integer, from a query string (text, hence coerced). */
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
