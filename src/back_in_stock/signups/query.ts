import { z } from "zod";

/** Query-string building blocks of the signup, notification and report reads. */

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP_MESSAGE = "must be an ISO 8601 timestamp";
const timestamp = z.iso.datetime({ offset: true });

/**
 * A period bound: an ISO 8601 timestamp, or a date (YYYY-MM-DD, UTC). A date as a start is that
 * day's midnight; as an end it is the next midnight, so `to=2026-03-31` includes the 31st.
 * Starts are inclusive, ends exclusive.
 */
function bound(edge: "start" | "end") {
  return z
    .string({ error: TIMESTAMP_MESSAGE })
    .refine((v) => (DATE.test(v) ? !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) : timestamp.safeParse(v).success), TIMESTAMP_MESSAGE)
    .transform((v) => {
      if (!DATE.test(v)) return new Date(v);
      const day = new Date(`${v}T00:00:00Z`);
      if (edge === "end") day.setUTCDate(day.getUTCDate() + 1);
      return day;
    })
    .meta({ examples: edge === "start" ? ["2026-03-01", "2026-03-01T00:00:00Z"] : ["2026-03-31", "2026-04-01T00:00:00Z"] });
}

export const periodStart = bound("start");
export const periodEnd = bound("end");

export const perPage = (max: number, fallback: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback).describe(`Items per page, 1-${max} (default ${fallback})`);

/** Opaque keyset cursor: the sort key of the last item of the previous page. */
export function encodeCursor(values: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString("base64url");
}

export function cursorSchema<T extends z.ZodType>(shape: T) {
  return z
    .string()
    .transform((value, ctx): z.output<T> => {
      let decoded: unknown;
      try {
        decoded = JSON.parse(Buffer.from(value, "base64url").toString("utf8"));
      } catch {
        decoded = undefined;
      }
      const parsed = shape.safeParse(decoded);
      if (!parsed.success) {
        ctx.addIssue({ code: "custom", message: "must be the next_cursor of a previous page", input: value });
        return z.NEVER;
      }
      return parsed.data;
    })
    .describe("next_cursor of the previous page");
}

/** Collects `and` clauses with numbered parameters, so a query carries only the filters given. */
export class Filters {
  readonly params: unknown[];
  private readonly clauses: string[] = [];

  constructor(initial: unknown[] = []) {
    this.params = [...initial];
  }

  /** The value's placeholder ($n). */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** Adds `clause(placeholder)` when value is given. */
  when(value: unknown, clause: (p: string) => string): this {
    if (value !== undefined && value !== null) this.clauses.push(clause(this.param(value)));
    return this;
  }

  add(clause: string): this {
    this.clauses.push(clause);
    return this;
  }

  sql(): string {
    return this.clauses.length === 0 ? "true" : this.clauses.join(" and ");
  }
}
