import { CaptureTag, Context, type Emitter, Liquid, type Template, toValue, toValueSync } from "liquidjs";
import { refuseFileTags } from "./file-tags.ts";
import { OUTPUT_LIMIT_MESSAGE, TEMPLATE_LIMITS, type TemplateKind } from "./limits.ts";

/**
 * The one place a Liquid engine is made, loaded only by the render pool's threads (worker.ts):
 * rendering is synchronous and may run a whole filter chain past the time limit, so it must never
 * run on a thread that serves requests or jobs. The store platform's own template language:
 * unknown filters are errors, unknown variables render empty. `templates: {}` keeps every lookup
 * in an empty in-memory map, never the service's files (its secrets live in DATA_DIR), and the
 * tags that would look one up are refused at parse (file-tags.ts).
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
  refuseFileTags(engine);
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
 * own, per render, checked between template nodes only: the pool's deadline bounds the rest) and
 * the characters it writes, output and captures together (BoundedEmitter). One engine serves
 * every shop, as the limits apply per render.
 */
export function renderParsed(templates: Template[], variables: Record<string, unknown>, kind: TemplateKind): string {
  const engine = engines[kind];
  const ctx = new Context(variables, engine.options, { sync: true }, { liquid: engine });
  const emitter = new BoundedEmitter(budgetOf(ctx));
  toValueSync(engine.renderer.renderTemplates(templates, ctx, emitter));
  return emitter.buffer;
}
