import { type Issue, fieldIssue, issueText } from "../../core/errors.ts";

/**
 * Bounds on one merchant template, enforced by liquidjs itself at PATCH and at send: a template
 * is code the service runs, and one loop of 10^8 iterations used to freeze every shop. Real
 * templates (the shipped ones, a large HTML e-mail) use a fraction of each.
 *
 * This module is what the main thread may know of rendering (limits and their messages); the
 * engine itself (engine.ts) runs only in the render pool's threads (pool.ts).
 */
export const TEMPLATE_LIMITS = {
  /** Characters of one template: the longest field, an e-mail body, may have this many. */
  parseLength: 100_000,
  /** Milliseconds one render may take; the shipped templates take well under one. */
  renderMs: 100,
  /** liquidjs's allocation count per render (characters and list items built by ranges and filters); the shipped templates use about 130. */
  memory: 1_000_000,
  /**
   * Characters one render may produce. liquidjs bounds neither output nor what a loop writes (its
   * memory limit counts only ranges and filters): 5,000 iterations of a 99,000-character line made
   * a 495-million-character e-mail within the time limit.
   */
  outputLength: 1_000_000,
} as const;

type TemplateLimit = "parse" | "render" | "memory" | "output";

/** `text` for subjects and text messages; `html` for e-mail bodies, whose values are escaped (a product called `Tee <b>` stays text). */
export type TemplateKind = "text" | "html";

/** `<field> must ...`: what a template beyond a limit is told, at PATCH and in the send log. */
const LIMIT_RULES: Record<TemplateLimit, string> = {
  parse: `must be at most ${TEMPLATE_LIMITS.parseLength} characters`,
  render: `must render within ${TEMPLATE_LIMITS.renderMs} ms`,
  memory: `must render within the memory limit of ${TEMPLATE_LIMITS.memory} characters or list items`,
  output: `must render to at most ${TEMPLATE_LIMITS.outputLength} characters`,
};

export const OUTPUT_LIMIT_MESSAGE = "output length limit exceeded";

/** What liquidjs says when its own render limit stops a render; the pool says the same of a render it had to terminate. */
export const RENDER_LIMIT_MESSAGE = "template render limit exceeded";

// liquidjs reports its limits through these messages only (an AssertionError, or a RenderError carrying its text).
const LIMIT_MESSAGES: [string, TemplateLimit][] = [
  ["parse length limit exceeded", "parse"],
  [RENDER_LIMIT_MESSAGE, "render"],
  ["memory alloc limit exceeded", "memory"],
  [OUTPUT_LIMIT_MESSAGE, "output"],
];

/** Which limit a liquidjs error reports, if it reports one. */
export function exceededLimit(error: unknown): TemplateLimit | undefined {
  const message = error instanceof Error ? error.message : "";
  return LIMIT_MESSAGES.find(([text]) => message.startsWith(text))?.[1];
}

/** One line about why `field`'s template failed: `<field> must render within 100 ms`, `<field> is not a valid template: ...`. */
export function templateFailure(field: string, error: unknown): string {
  return issueText(templateIssue(field, error));
}

/** The same failure as a 422's issue of the field. */
export function templateIssue(field: string, error: unknown): Issue {
  const limit = exceededLimit(error);
  if (limit) return fieldIssue(field, LIMIT_RULES[limit]);
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return fieldIssue(field, `is not a valid template: ${message}`);
}
