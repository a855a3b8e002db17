import { legacyIdOf } from "./ids.ts";

/**
 * The `query` argument of connections: space-separated `field:value` terms, all of which must hold,
 * with an optional comparison (`updated_at:>'2026-01-01T00:00:00Z'`, `id:>1234`). The platform
 * ignores filters it does not know; the emulator refuses them, so a client relying on one notices
 * here rather than syncing everything in production.
 */
type Comparison = ">" | ">=" | "<" | "<=" | "=";

interface SearchTerm {
  field: string;
  op: Comparison;
  value: string;
}

const TERM = /\s*(?:(AND)(?=\s|$)|([a-z_]+):(>=|<=|>|<)?(?:'([^']*)'|"([^"]*)"|([^\s'"]+)))/y;

function parseSearch(query: string): SearchTerm[] {
  const terms: SearchTerm[] = [];
  TERM.lastIndex = 0;
  while (TERM.lastIndex < query.length) {
    if (query.slice(TERM.lastIndex).trim() === "") break;
    const at = TERM.lastIndex;
    const match = TERM.exec(query);
    if (!match) throw new Error(`Unsupported search syntax at ${at} in query '${query}' (the emulator supports field:value terms joined by spaces or AND)`);
    if (match[1]) continue;
    const field = match[2] ?? "";
    terms.push({ field, op: (match[3] as Comparison | undefined) ?? "=", value: match[4] ?? match[5] ?? match[6] ?? "" });
  }
  return terms;
}

export type FieldFilter<T> =
  | { kind: "time"; get: (row: T) => number }
  | { kind: "id"; type: string; get: (row: T) => number }
  | { kind: "text"; get: (row: T) => string | null }
  | { kind: "tags"; get: (row: T) => readonly string[] };

function compare(a: number, op: Comparison, b: number): boolean {
  switch (op) {
    case ">":
      return a > b;
    case ">=":
      return a >= b;
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case "=":
      return a === b;
  }
}

function predicate<T>(term: SearchTerm, filter: FieldFilter<T>): (row: T) => boolean {
  switch (filter.kind) {
    case "time": {
      const at = Date.parse(term.value);
      if (Number.isNaN(at)) throw new Error(`Invalid date '${term.value}' for ${term.field} in search query`);
      return (row) => compare(filter.get(row), term.op, at);
    }
    case "id": {
      const id = legacyIdOf(filter.type, term.value);
      if (id === undefined) throw new Error(`Invalid id '${term.value}' for ${term.field} in search query`);
      return (row) => compare(filter.get(row), term.op, id);
    }
    case "text": {
      if (term.op !== "=") throw new Error(`${term.field} does not support '${term.op}' in search query`);
      const wanted = term.value.toLowerCase();
      return (row) => filter.get(row)?.toLowerCase() === wanted;
    }
    case "tags": {
      if (term.op !== "=") throw new Error(`${term.field} does not support '${term.op}' in search query`);
      const wanted = term.value.toLowerCase();
      return (row) => filter.get(row).some((t) => t.toLowerCase() === wanted);
    }
  }
}

/** A predicate for the query, or undefined when it filters nothing. */
export function compileSearch<T>(query: string | null | undefined, fields: Record<string, FieldFilter<T>>): ((row: T) => boolean) | undefined {
  if (!query?.trim()) return undefined;
  const checks = parseSearch(query).map((term) => {
    const filter = fields[term.field];
    if (!filter) {
      throw new Error(`Unsupported search field '${term.field}' (the emulator supports: ${Object.keys(fields).join(", ")})`);
    }
    return predicate(term, filter);
  });
  if (checks.length === 0) return undefined;
  return (row) => checks.every((check) => check(row));
}
