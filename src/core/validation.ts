import type { z } from "zod";
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

function fieldName(path: readonly PropertyKey[]): string {
  // A key may itself hold a NUL or a lone surrogate: the answer names it without carrying either.
  return path.length === 0 ? "body" : path.map((segment) => printable(String(segment))).join(".");
}

/** Zod's own messages start with a capital; ours ("must be a hex color") are written to follow a field name. */
function isOwnMessage(message: string): boolean {
  return /^(must|is|cannot|needs) /.test(message);
}

function describe(issue: z.core.$ZodIssue): string {
  const field = fieldName(issue.path);
  const input = (issue as { input?: unknown }).input;
  // An absent field is "required" whatever its schema (a type, an enum, a union), never "must be one of".
  if (input === undefined && (issue.code === "invalid_type" || issue.code === "invalid_value" || issue.code === "invalid_union")) {
    return `${field} is required`;
  }
  if (isOwnMessage(issue.message)) return `${field} ${issue.message}`;
  switch (issue.code) {
    case "invalid_type": {
      const type = TYPE_NAMES[issue.expected] ?? issue.expected;
      return `${field} must be a${/^[aeiou]/i.test(type) ? "n" : ""} ${type}`;
    }
    case "invalid_value":
      return `${field} must be one of: ${issue.values.map(String).join(", ")}`;
    case "too_big":
      if (issue.origin === "array") return `${field} must contain at most ${String(issue.maximum)} items`;
      if (issue.origin === "string") return `${field} must be at most ${String(issue.maximum)} characters`;
      return `${field} must be at most ${String(issue.maximum)}`;
    case "too_small":
      if (issue.origin === "array") return `${field} must contain at least ${String(issue.minimum)} items`;
      if (issue.origin === "string") {
        return issue.minimum === 1 ? `${field} must not be empty` : `${field} must be at least ${String(issue.minimum)} characters`;
      }
      return `${field} must be at least ${String(issue.minimum)}`;
    case "invalid_format":
      return `${field} must be a valid ${issue.format}`;
    default:
      return `${field} is invalid`;
  }
}

/**
 * One message per field, dotted paths, in the stable forms of DESIGN.md. Unknown keys become one
 * `<field> is not allowed` each, so a typo is never silently ignored.
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  const byField = new Map<string, string>();
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const field = fieldName([...issue.path, key]);
        if (!byField.has(field)) byField.set(field, `${field} is not allowed`);
      }
      continue;
    }
    const field = fieldName(issue.path);
    if (!byField.has(field)) byField.set(field, describe(issue));
  }
  return [...byField.values()];
}
