import type { z } from "zod";
import type { Issue } from "./errors.ts";
import { printable } from "./text-input.ts";

const TYPE_NAMES: Record<string, string> = {
  int: "integer",
  number: "number",
  string: "string",
  boolean: "boolean",
  array: "array",
  object: "object",
  bigint: "integer",
  date: "ISO 8601 timestamp",
};

/** The issue's path, dotted; empty for the body itself. */
function dottedPath(path: readonly PropertyKey[]): string {
  // A key may itself hold a NUL or a lone surrogate: the answer names it without carrying either.
  return path.map((segment) => printable(String(segment))).join(".");
}

/** Zod's own messages start with a capital; ours ("must be a hex color") are written to follow a field name. */
function isOwnMessage(message: string): boolean {
  return /^(must|is|cannot|needs) /.test(message);
}

/** What is wrong with the issue's field, in the stable forms of DESIGN.md, without the field's name. */
function describe(issue: z.core.$ZodIssue): string {
  const input = (issue as { input?: unknown }).input;
  // An absent field is "required" whatever its schema (a type, an enum, a union), never "must be one of".
  if (input === undefined && (issue.code === "invalid_type" || issue.code === "invalid_value" || issue.code === "invalid_union")) {
    return "is required";
  }
  if (isOwnMessage(issue.message)) return issue.message;
  switch (issue.code) {
    case "invalid_type": {
      const type = TYPE_NAMES[issue.expected] ?? issue.expected;
      return `must be a${/^[aeiou]/i.test(type) ? "n" : ""} ${type}`;
    }
    case "invalid_value":
      return `must be one of: ${issue.values.map(String).join(", ")}`;
    case "too_big":
      if (issue.origin === "array") return `must contain at most ${String(issue.maximum)} items`;
      if (issue.origin === "string") return `must be at most ${String(issue.maximum)} characters`;
      return `must be at most ${String(issue.maximum)}`;
    case "too_small":
      if (issue.origin === "array") return `must contain at least ${String(issue.minimum)} items`;
      if (issue.origin === "string") {
        return issue.minimum === 1 ? "must not be empty" : `must be at least ${String(issue.minimum)} characters`;
      }
      return `must be at least ${String(issue.minimum)}`;
    case "invalid_format":
      return `must be a valid ${issue.format}`;
    default:
      return "is invalid";
  }
}

/**
 * One issue per field, dotted paths, messages in the stable forms of DESIGN.md (`issueText` makes
 * `<field> <message>` of each). Unknown keys become one `is not allowed` each, so a typo is never
 * silently ignored; `instead` (dotted path → what to use) says after a colon what sets a field the
 * body may not; the first issue of a field wins.
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[], instead: Readonly<Record<string, string>> = {}): Issue[] {
  const byField = new Map<string, Issue>();
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const path = dottedPath([...issue.path, key]);
        // A field the answer shows but the body may not set says what sets it (ActionDefinition.refusedFields).
        const hint = Object.hasOwn(instead, path) ? instead[path] : undefined;
        if (!byField.has(path)) byField.set(path, { path, message: hint ? `is not allowed: ${hint}` : "is not allowed" });
      }
      continue;
    }
    const path = dottedPath(issue.path);
    if (!byField.has(path)) byField.set(path, { path, message: describe(issue) });
  }
  return [...byField.values()];
}
