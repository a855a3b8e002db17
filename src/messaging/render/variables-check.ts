import { Liquid, type Template, type Variable } from "liquidjs";
import { type Issue, fieldIssue } from "../../core/errors.ts";
import { refuseFileTags } from "./file-tags.ts";
import { TEMPLATE_LIMITS } from "./limits.ts";

/**
 * The variables a template may use, and the check that it uses no other: liquidjs renders an
 * unknown variable as nothing, so `{{ product.titel }}` was saved and sent "Subject:  is back".
 * Each area declares its variables per stage in one table (back_in_stock/templates/stages.ts,
 * preorders/notifications/stages.ts) with the sample value previews and the PATCH check use.
 *
 * The check is liquidjs's static analysis of the parsed template: names the template assigns or
 * captures, loop variables and `forloop` are in scope and never reported.
 */

/** A sample value: what a preview shows for the variable and what the PATCH check renders with. */
export type SampleValue = string | number | boolean | null;

/** A stage's variables by dotted path (`product.title`), each with its sample value. */
export type VariableSamples = Readonly<Record<string, SampleValue>>;

/** The nested object a template renders with: `{ "shop.name": "x" }` gives `{ shop: { name: "x" } }`. */
export function sampleData(samples: VariableSamples): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(samples)) {
    const keys = path.split(".");
    let node = root;
    for (const key of keys.slice(0, -1)) {
      const next = node[key];
      if (typeof next === "object" && next !== null) node = next as Record<string, unknown>;
      else node = node[key] = {};
    }
    node[keys[keys.length - 1] ?? path] = value;
  }
  return root;
}

/**
 * Parse-only: the render engines live in the render pool's threads (messaging/render/engine.ts);
 * parsing is linear in the source, bounded by the same length limit, and the options that decide
 * what parses (no partial files, strict filters) are theirs.
 */
const parser = new Liquid({ strictFilters: true, strictVariables: false, templates: {}, parseLimit: TEMPLATE_LIMITS.parseLength });
refuseFileTags(parser);

/** Properties Liquid gives every string, list and object (`{{ shop.name.size }}`). */
const BUILT_IN_PROPERTIES = new Set(["size", "first", "last"]);

interface PathTree {
  [key: string]: PathTree;
}

function treeOf(known: readonly string[]): PathTree {
  const root: PathTree = {};
  for (const path of known) {
    let node = root;
    for (const key of path.split(".")) node = node[key] ??= {};
  }
  return root;
}

/** Whether a reference reaches a declared variable, an object above one, or a built-in property of either. */
function isKnown(segments: Variable["segments"], tree: PathTree): boolean {
  let node = tree;
  for (const [i, segment] of segments.entries()) {
    // `product[key]`: the key is a variable of its own (checked by itself); what it picks is not known before the render.
    if (typeof segment === "object") return i > 0;
    const child = Object.hasOwn(node, String(segment)) ? node[String(segment)] : undefined;
    if (child) node = child;
    else return i > 0 && i === segments.length - 1 && BUILT_IN_PROPERTIES.has(String(segment));
  }
  return true;
}

/** The references of a template to undeclared variables, as written (`product.titel`), each once; [] when it does not parse (the render check says why). */
export function unknownVariables(source: string, known: readonly string[]): string[] {
  let templates: Template[];
  try {
    templates = parser.parse(source);
  } catch {
    return [];
  }
  const tree = treeOf(known);
  const { globals } = parser.analyzeSync(templates, { partials: false });
  const unknown = Object.values(globals)
    .flat()
    .filter((variable) => !isKnown(variable.segments, tree))
    .map((variable) => variable.toString());
  return [...new Set(unknown)];
}

/** `email.subject uses unknown variable product.titel; known: shop.name, ...`: the field's 422 issue, or undefined. */
export function unknownVariableIssue(field: string, source: string, known: readonly string[]): Issue | undefined {
  const unknown = unknownVariables(source, known);
  if (unknown.length === 0) return undefined;
  const what = unknown.length === 1 ? "variable" : "variables";
  return fieldIssue(field, `uses unknown ${what} ${unknown.join(", ")}; known: ${known.join(", ")}`);
}
