import type { z } from "zod";

/**
 * PostgreSQL refuses U+0000 in text and jsonb, and a lone UTF-16 surrogate either breaks a jsonb
 * literal or is silently replaced on the wire: neither may reach a query. Checked once, on the
 * request's raw input, for every action and transport.
 */
export const UNSTORABLE_TEXT = "must not contain NUL bytes or unpaired surrogates";

// No action's input nests anywhere near this deep, so zod refuses a deeper value at a shallower
// level on its own; the bound only keeps this walk off the end of the call stack.
const MAX_DEPTH = 64;

/** Native checks, no regex and no allocation: this runs on every string of every request. */
export function unstorable(text: string): boolean {
  return text.includes("\u0000") || !text.isWellFormed();
}

/** A field name that carries no NUL and no lone surrogate itself: those are written out as `\uXXXX`. */
export function printable(segment: string): string {
  if (!unstorable(segment)) return segment;
  // eslint-disable-next-line no-control-regex -- the NUL is exactly what is written out here
  return segment.replace(/[\u0000\p{Cs}]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function walk(value: unknown, path: PropertyKey[], issues: z.core.$ZodIssue[], depth: number): void {
  if (typeof value === "string") {
    if (unstorable(value)) issues.push({ code: "custom", path: [...path], message: UNSTORABLE_TEXT, input: value });
    return;
  }
  if (value === null || typeof value !== "object" || depth >= MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      walk(value[i], path, issues, depth + 1);
      path.pop();
    }
    return;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    path.push(key);
    // A bad key is reported once, at its own path; its value is not looked into.
    if (unstorable(key)) issues.push({ code: "custom", path: [...path], message: UNSTORABLE_TEXT, input: key });
    else walk((value as Record<string, unknown>)[key], path, issues, depth + 1);
    path.pop();
  }
}

/** One issue per string or object key of `input` that cannot be stored, at its path (empty when all is well). */
export function unstorableTextIssues(input: unknown, issues: z.core.$ZodIssue[] = []): z.core.$ZodIssue[] {
  walk(input, [], issues, 0);
  return issues;
}
