import { Liquid } from "liquidjs";
import { type Issue, fieldIssue, issueText } from "../../core/errors.ts";

/**
 * Bounds on one merchant template, enforced by liquidjs itself at PATCH and at send: a template
 * is code the service runs, and one loop of 10^8 iterations used to freeze every shop. Real
 * templates (the shipped ones, a large HTML e-mail) use a fraction of each.
 */
export const TEMPLATE_LIMITS = {
  /** Characters of one template: the longest field, an e-mail body, may have this many. */
  parseLength: 100_000,
  /** Milliseconds one render may take; the shipped templates take well under one. */
  renderMs: 100,
  /** liquidjs's allocation count per render (characters and list items built by ranges and filters); the shipped templates use about 130. */
  memory: 1_000_000,
} as const;

export type TemplateLimit = "parse" | "render" | "memory";

/** `<field> must ...`: what a template beyond a limit is told, at PATCH and in the send log. */
const LIMIT_RULES: Record<TemplateLimit, string> = {
  parse: `must be at most ${TEMPLATE_LIMITS.parseLength} characters`,
  render: `must render within ${TEMPLATE_LIMITS.renderMs} ms`,
  memory: `must render within the memory limit of ${TEMPLATE_LIMITS.memory} characters or list items`,
};

// liquidjs reports its limits through these messages only (an AssertionError, or a RenderError carrying its text).
const LIMIT_MESSAGES: [string, TemplateLimit][] = [
  ["parse length limit exceeded", "parse"],
  ["template render limit exceeded", "render"],
  ["memory alloc limit exceeded", "memory"],
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
function templateIssue(field: string, error: unknown): Issue {
  const limit = exceededLimit(error);
  if (limit) return fieldIssue(field, LIMIT_RULES[limit]);
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return fieldIssue(field, `is not a valid template: ${message}`);
}

/** `text` for subjects and text messages; `html` for e-mail bodies, whose values are escaped (a product called `Tee <b>` stays text). */
export type TemplateKind = "text" | "html";

/**
 * The one place a Liquid engine is made. The store platform's own template language: unknown
 * filters are errors, unknown variables render empty. `templates: {}` makes include, render and
 * layout look up an empty in-memory map, never the service's files (its secrets live in DATA_DIR).
 */
function createEngine(kind: TemplateKind): Liquid {
  return new Liquid({
    strictFilters: true,
    strictVariables: false,
    templates: {},
    parseLimit: TEMPLATE_LIMITS.parseLength,
    renderLimit: TEMPLATE_LIMITS.renderMs,
    memoryLimit: TEMPLATE_LIMITS.memory,
    ...(kind === "html" ? { outputEscape: "escape" as const } : {}),
  });
}

const engines: Record<TemplateKind, Liquid> = { text: createEngine("text"), html: createEngine("html") };

/** The shared engine of a kind: limits apply per parse and per render, so one engine serves every shop. */
export function templateEngine(kind: TemplateKind): Liquid {
  return engines[kind];
}

/** Variables every back-in-stock template can use; also listed in /help through the PATCH description. */
export const TEMPLATE_VARIABLES = [
  "shop.name",
  "shop.url",
  "customer.first_name",
  "customer.email",
  "customer.phone",
  "product.title",
  "product.url",
  "product.image_url",
  "variant.title",
  "variant.sku",
  "variant.price",
  "unsubscribe_url",
] as const;

export const SAMPLE_VARIABLES = {
  shop: { name: "Sample Store", url: "https://sample-store.example" },
  customer: { first_name: "Alex", email: "alex@example.com", phone: "+15555550123" },
  product: { title: "Sample Tee", url: "https://sample-store.example/products/sample-tee", image_url: "https://sample-store.example/tee.png" },
  variant: { title: "Blue / M", sku: "TEE-BLU-M", price: "25.00" },
  unsubscribe_url: "https://sample-store.example/unsubscribe/sample",
};

export async function renderTemplate(source: string, variables: Record<string, unknown>, kind: TemplateKind = "text"): Promise<string> {
  return (await templateEngine(kind).parseAndRender(source, variables)) as string;
}

/**
 * Parses and renders with sample data, as a send would (synchronously, same engine, same limits):
 * a template that cannot render, or goes beyond a limit, is refused when saved. Answers the
 * field's 422 issue, or undefined when the template is fine.
 */
export function templateProblem(field: string, source: string, kind: TemplateKind): Issue | undefined {
  try {
    templateEngine(kind).parseAndRenderSync(source, SAMPLE_VARIABLES);
    return undefined;
  } catch (error) {
    return templateIssue(field, error);
  }
}
