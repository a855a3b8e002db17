import { z } from "zod";

/** Query-string building blocks of the signup, notification and report reads. */

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
