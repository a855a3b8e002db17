import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AnyAction } from "../core/action.ts";
import type { Dispatcher } from "../core/dispatcher.ts";
import { issueText } from "../core/errors.ts";
import { manifestEntry, summary } from "../core/manifest.ts";
import { formatIssues } from "../core/validation.ts";
import { type ToolCatalog, callTool, refusal, toolName } from "./tools.ts";

/**
 * The discovery tools: the whole API through three tools, for hosts that cannot take 163 (dynamic
 * tool discovery, as GitHub's MCP server offers it). search_actions and describe_action read the
 * manifest; call_action runs an action exactly as its own tool would (dispatched, charged).
 */
const SEARCH_ACTIONS = "search_actions";
const DESCRIBE_ACTION = "describe_action";
export const CALL_ACTION = "call_action";

const SEARCH_LIMIT = 10;
const SEARCH_MAX = 50;

const searchInput = z.strictObject({
  query: z.string().min(1).max(500),
  limit: z.int().min(1).max(SEARCH_MAX).optional(),
});
const describeInput = z.strictObject({ name: z.string().min(1).max(200) });
const callInput = z.strictObject({
  name: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

const schema = (input: z.ZodType): Tool["inputSchema"] => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(input, { io: "input" });
  return rest as Tool["inputSchema"];
};

export const DISCOVERY_TOOLS: Tool[] = [
  {
    name: SEARCH_ACTIONS,
    title: "Search the API's actions",
    description:
      "Finds the actions (preorder offers, back-in-stock alerts, account settings, jobs, exports) that match some words, searched over names, descriptions and the phrases they are said as. Answers each action's name, a one-line description and the input schema call_action takes for it; best matches first.",
    inputSchema: {
      ...schema(searchInput),
      properties: {
        query: { type: "string", description: "words of what to do, e.g. 'enable preorder offer' or 'back in stock signups export'" },
        limit: { type: "integer", minimum: 1, maximum: SEARCH_MAX, description: `how many actions to answer (default ${SEARCH_LIMIT})` },
      },
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: DESCRIBE_ACTION,
    title: "Describe one action",
    description:
      "The full entry of one action by name (dotted, as search_actions answers it, or its tool name): method, path, description, rules (notes), input and response JSON Schemas, cost in rate-limit points and whether it answers a job handle.",
    inputSchema: schema(describeInput),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: CALL_ACTION,
    title: "Call an action",
    description:
      "Runs one action by name with its arguments (path parameters and request fields side by side, as describe_action's input_schema lists them). Answers what the action's own tool answers; charged the same. Writes answer the committed state or a job handle whose status is read with the action jobs.get.",
    inputSchema: {
      ...schema(callInput),
      properties: {
        name: { type: "string", description: "the action's name, e.g. preorders.offers.enable" },
        arguments: { type: "object", description: "the action's arguments, as its input_schema describes them", additionalProperties: true },
      },
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
];

/** An action by its dotted name or its tool name. */
export function findAction(catalog: ToolCatalog, name: string): AnyAction | undefined {
  return catalog.byName.get(name.replace(/\./g, "_"));
}

interface Indexed {
  action: AnyAction;
  name: Set<string>;
  aliases: Set<string>;
  text: Set<string>;
}

const indexes = new WeakMap<ToolCatalog, Indexed[]>();

const words = (text: string): string[] => text.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length >= 2);

function index(catalog: ToolCatalog): Indexed[] {
  let indexed = indexes.get(catalog);
  if (!indexed) {
    indexed = [...catalog.byName.values()].map((action) => ({
      action,
      name: new Set(words(action.name)),
      aliases: new Set(words((action.aliases ?? []).join(" "))),
      text: new Set(words([action.description, ...(action.notes ?? [])].join(" "))),
    }));
    indexes.set(catalog, indexed);
  }
  return indexed;
}

/** A word matches a token when they are equal or, both of three letters or more, one starts the other (signup, signups). */
function matches(tokens: Set<string>, word: string): boolean {
  if (tokens.has(word)) return true;
  if (word.length < 3) return false;
  for (const token of tokens) if (token.length >= 3 && (token.startsWith(word) || word.startsWith(token))) return true;
  return false;
}

/** Ranked by how many of the words match anywhere, then by where (name 3, aliases 2, text 1). */
function searchActions(catalog: ToolCatalog, query: string, limit = SEARCH_LIMIT): AnyAction[] {
  const wanted = [...new Set(words(query))];
  const scored: { action: AnyAction; found: number; score: number }[] = [];
  for (const entry of index(catalog)) {
    let found = 0;
    let score = 0;
    for (const word of wanted) {
      const weight = matches(entry.name, word) ? 3 : matches(entry.aliases, word) ? 2 : matches(entry.text, word) ? 1 : 0;
      if (weight > 0) found += 1;
      score += weight;
    }
    if (found > 0) scored.push({ action: entry.action, found, score });
  }
  scored.sort((a, b) => b.found - a.found || b.score - a.score || a.action.name.localeCompare(b.action.name));
  return scored.slice(0, limit).map((s) => s.action);
}

const answer = (value: Record<string, unknown>): CallToolResult => ({ content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value });

function invalid(error: z.ZodError): CallToolResult {
  const issues = formatIssues(error.issues);
  return refusal(422, issues.map(issueText), issues);
}

const unknownAction = (name: string): CallToolResult => refusal(404, [`Action not found: ${name}`], []);

/** Runs a discovery tool; undefined when `name` is not one. */
export async function callDiscoveryTool(
  dispatcher: Dispatcher,
  catalog: ToolCatalog,
  token: string | undefined,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult | undefined> {
  switch (name) {
    case SEARCH_ACTIONS: {
      const input = searchInput.safeParse(args, { reportInput: true });
      if (!input.success) return invalid(input.error);
      const found = searchActions(catalog, input.data.query, input.data.limit);
      const toolOf = (action: AnyAction) => catalog.tools.find((tool) => tool.name === toolName(action));
      return answer({
        actions: found.map((action) => ({
          name: action.name,
          method: action.method,
          path: action.path,
          description: summary(action.description),
          input_schema: toolOf(action)?.inputSchema ?? {},
        })),
      });
    }
    case DESCRIBE_ACTION: {
      const input = describeInput.safeParse(args, { reportInput: true });
      if (!input.success) return invalid(input.error);
      const action = findAction(catalog, input.data.name);
      if (!action) return unknownAction(input.data.name);
      const tool = catalog.tools.find((t) => t.name === toolName(action));
      return answer({ ...manifestEntry(action), tool: toolName(action), input_schema: tool?.inputSchema ?? {} });
    }
    case CALL_ACTION: {
      const input = callInput.safeParse(args, { reportInput: true });
      if (!input.success) return invalid(input.error);
      const action = findAction(catalog, input.data.name);
      if (!action) return unknownAction(input.data.name);
      return callTool(dispatcher, catalog.byName, token, toolName(action), input.data.arguments);
    }
    default:
      return undefined;
  }
}
