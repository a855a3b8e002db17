import { CaptureTag, Context, type Emitter, Liquid, type Template, toValue, toValueSync } from "liquidjs";
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
  /**
   * Characters one render may produce. liquidjs bounds neither output nor what a loop writes (its
   * memory limit counts only ranges and filters): 5,000 iterations of a 99,000-character line made
   * a 495-million-character e-mail within the time limit.
   */
  outputLength: 1_000_000,
} as const;

export type TemplateLimit = "parse" | "render" | "memory" | "output";

/** `<field> must ...`: what a template beyond a limit is told, at PATCH and in the send log. */
const LIMIT_RULES: Record<TemplateLimit, string> = {
  parse: `must be at most ${TEMPLATE_LIMITS.parseLength} characters`,
  render: `must render within ${TEMPLATE_LIMITS.renderMs} ms`,
  memory: `must render within the memory limit of ${TEMPLATE_LIMITS.memory} characters or list items`,
  output: `must render to at most ${TEMPLATE_LIMITS.outputLength} characters`,
};

const OUTPUT_LIMIT_MESSAGE = "output length limit exceeded";

// liquidjs reports its limits through these messages only (an AssertionError, or a RenderError carrying its text).
const LIMIT_MESSAGES: [string, TemplateLimit][] = [
  ["parse length limit exceeded", "parse"],
  ["template render limit exceeded", "render"],
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
  const engine = new Liquid({
    strictFilters: true,
    strictVariables: false,
    templates: {},
    parseLimit: TEMPLATE_LIMITS.parseLength,
    renderLimit: TEMPLATE_LIMITS.renderMs,
    memoryLimit: TEMPLATE_LIMITS.memory,
    ...(kind === "html" ? { outputEscape: "escape" as const } : {}),
  });
  engine.registerTag("capture", BoundedCaptureTag);
  return engine;
}

/** Parses a template (its length limit applies); render it with renderParsed. */
export function parseTemplate(source: string, kind: TemplateKind): Template[] {
  return engines[kind].parse(source);
}

/** What liquidjs's own emitter writes for a value (a Drop's value, nil as nothing, arrays joined). */
function outputText(value: unknown): string {
  const plain: unknown = toValue(value);
  if (typeof plain === "string") return plain;
  if (plain === null || plain === undefined) return "";
  if (Array.isArray(plain)) return plain.map(outputText).join("");
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- as liquidjs's own emitter: String() of whatever it is
  return String(plain);
}

/** Characters a render may still write, shared by its output and everything it captures. */
interface OutputBudget {
  left: number;
}

/** The budget of each render in progress (renderParsed registers it; its tags find it by context). */
const budgets = new WeakMap<Context, OutputBudget>();

function budgetOf(ctx: Context): OutputBudget {
  let budget = budgets.get(ctx);
  if (!budget) budgets.set(ctx, (budget = { left: TEMPLATE_LIMITS.outputLength }));
  return budget;
}

/** liquidjs's string emitter, drawing on the render's output budget (past it, the error stops the render). */
class BoundedEmitter implements Emitter {
  buffer = "";
  private readonly budget: OutputBudget;

  constructor(budget: OutputBudget) {
    this.budget = budget;
  }

  write(html: unknown): void {
    const text = outputText(html);
    if (text.length > this.budget.left) throw new Error(OUTPUT_LIMIT_MESSAGE);
    this.budget.left -= text.length;
    this.buffer += text;
  }
}

/**
 * liquidjs's capture renders into an emitter of its own, which no limit sees: a capture doubled
 * in a loop built a 524-million-character string in 3 ms. This one writes through the render's
 * budget like its output does.
 */
class BoundedCaptureTag extends CaptureTag {
  override *render(ctx: Context): Generator<unknown, void, string> {
    const emitter = new BoundedEmitter(budgetOf(ctx));
    yield this.liquid.renderer.renderTemplates(this.templates, ctx, emitter);
    ctx.bottom()[this.variable] = emitter.buffer;
  }
}

const engines: Record<TemplateKind, Liquid> = { text: createEngine("text"), html: createEngine("html") };

/**
 * Renders parsed templates synchronously within every limit: time and allocations (liquidjs's
 * own, per render) and the characters it writes, output and captures together (BoundedEmitter). Every render of a merchant's template goes
 * through here; one engine serves every shop, as the limits apply per render.
 */
export function renderParsed(templates: Template[], variables: Record<string, unknown>, kind: TemplateKind): string {
  const engine = engines[kind];
  const ctx = new Context(variables, engine.options, { sync: true }, { liquid: engine });
  const emitter = new BoundedEmitter(budgetOf(ctx));
  toValueSync(engine.renderer.renderTemplates(templates, ctx, emitter));
  return emitter.buffer;
}

/** Parses and renders (renderParsed's limits). */
export function renderSource(source: string, variables: Record<string, unknown>, kind: TemplateKind): string {
  return renderParsed(parseTemplate(source, kind), variables, kind);
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

export function renderTemplate(source: string, variables: Record<string, unknown>, kind: TemplateKind = "text"): Promise<string> {
  return Promise.resolve(renderSource(source, variables, kind));
}

/**
 * Parses and renders with sample data, as a send would (synchronously, same engine, same limits):
 * a template that cannot render, or goes beyond a limit, is refused when saved. Answers the
 * field's 422 issue, or undefined when the template is fine.
 */
export function templateProblem(field: string, source: string, kind: TemplateKind): Issue | undefined {
  try {
    renderSource(source, SAMPLE_VARIABLES, kind);
    return undefined;
  } catch (error) {
    return templateIssue(field, error);
  }
}
