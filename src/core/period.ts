import { z } from "zod";

/**
 * Date bounds of every list, filter and report, one rule everywhere: `from` is inclusive, `to`
 * exclusive; a bare date (YYYY-MM-DD, UTC) as `from` is that day's midnight and as `to` the next
 * midnight, so `to=2026-03-31` covers the whole 31st while `to=2026-04-01T00:00:00Z` ends before it.
 */

/** How descriptions say it, the same way in every area. */
export const PERIOD_RULE = "ISO 8601 dates or timestamps, UTC; from is inclusive, to exclusive, and a bare date as to covers that whole day";

const MESSAGE = "must be an ISO 8601 date or timestamp";
const DATE = /^\d{4}-\d{2}-\d{2}$/;
// PostgreSQL has no year 0: an instant before this would fail the query rather than match nothing.
/** The instants PostgreSQL's timestamptz and JavaScript's ISO 8601 both write the same way. */
export const EARLIEST_INSTANT = Date.parse("0001-01-01T00:00:00Z");
export const LATEST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");
const EARLIEST = EARLIEST_INSTANT;

const isDate = (value: string): boolean => DATE.test(value);

/** An ISO 8601 date (`2026-11-01`, a whole UTC day) or timestamp with an offset. */
export const dateOrTimestamp = z
  .string({ error: MESSAGE })
  .refine((v) => (z.iso.date().safeParse(v).success || z.iso.datetime({ offset: true }).safeParse(v).success) && Date.parse(v) >= EARLIEST, {
    message: MESSAGE,
  })
  .meta({ examples: ["2026-11-01", "2026-11-01T00:00:00Z"] });

/** The instant a `from` bound starts at (a date: its midnight UTC). */
function lowerInstant(value: string): Date {
  return new Date(isDate(value) ? `${value}T00:00:00Z` : value);
}

/** The instant a `to` bound ends before: a timestamp itself, a date the next midnight UTC. */
function upperInstant(value: string): Date {
  if (!isDate(value)) return new Date(value);
  const next = new Date(`${value}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  // The end of 9999-12-31 is in year 10000, which neither ISO 8601's four-digit years nor a job
  // payload re-read with dateOrTimestamp can carry: end a millisecond before it instead.
  return new Date(Math.min(next.getTime(), LATEST_INSTANT));
}

/**
 * An instant as PostgreSQL reads it: JavaScript writes years past 9999 as `+010000`, which
 * PostgreSQL takes for a zone offset (the exclusive end of `9999-12-31` is in year 10000).
 */
function toTimestamptz(instant: Date): string {
  return instant.toISOString().replace(/^\+0*/, "");
}

/** `lowerInstant` as a query parameter (`>=`). */
export function lowerBound(value: string | undefined): string | null {
  return value === undefined ? null : toTimestamptz(lowerInstant(value));
}

/** `upperInstant` as a query parameter (`<`). */
export function upperBound(value: string | undefined): string | null {
  return value === undefined ? null : toTimestamptz(upperInstant(value));
}

/** A `from` parameter, read as its instant. */
export const periodStart = dateOrTimestamp.transform(lowerInstant).describe("Start, inclusive: an ISO 8601 date or timestamp (UTC)");

/** A `to` parameter, read as the (exclusive) instant it ends before. */
export const periodEnd = dateOrTimestamp
  .transform(upperInstant)
  .describe("End, exclusive: an ISO 8601 timestamp, or a date, which covers that whole day (UTC)");

/** A bound's instant when it is a valid one (parsed or not yet), else undefined. */
function boundInstant(value: unknown, read: (value: string) => Date): number | undefined {
  const instant = value instanceof Date ? value.getTime() : typeof value === "string" && dateOrTimestamp.safeParse(value).success ? read(value).getTime() : Number.NaN;
  return Number.isNaN(instant) ? undefined : instant;
}

/**
 * `to` must end after `from` starts, on the object that holds both bounds. It runs whatever else
 * failed (so the answer names every wrong field at once) and compares only two valid bounds: an
 * invalid bound, or a body that is no object at all (`null`), is left to the issues already reported.
 */
export function withPeriodOrder<T extends z.ZodType>(schema: T, fields: { from: string; to: string } = { from: "from", to: "to" }): T {
  return schema.superRefine(
    (value: unknown, ctx) => {
      if (typeof value !== "object" || value === null) return;
      const bounds = value as Record<string, unknown>;
      const from = boundInstant(bounds[fields.from], lowerInstant);
      const to = boundInstant(bounds[fields.to], upperInstant);
      if (from !== undefined && to !== undefined && from >= to) ctx.addIssue({ code: "custom", path: [fields.to], message: `must be after ${fields.from}` });
    },
    { when: () => true },
  );
}
