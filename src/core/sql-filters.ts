/** The one SQL filter builder of the reads: lists (orders, offers, signups, notifications, webhook events), copilot and reports; paging: src/core/paging.ts, periods: src/core/period.ts. The values given to the constructor are $1..$n; every further placeholder is `param(value)`, never a number written by hand. */

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
