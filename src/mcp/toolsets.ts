import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyAction } from "../core/action.ts";
import { DISCOVERY_TOOLS } from "./discovery.ts";
import type { ToolCatalog } from "./tools.ts";

/**
 * Toolsets: which tools an MCP client is given. The whole registry (163 tools, about 667 KB of
 * tools/list) is more than agent hosts accept, so by default a client gets the discovery tools
 * (search_actions, describe_action, call_action: every action reachable through three tools), and
 * asks for areas by name (`?toolsets=preorders,back_in_stock`, MCP_TOOLSETS for stdio).
 */

/** The toolset of actions whose name starts with none of the merchant areas: help, jobs, exports. */
const CORE = "core";
/** search_actions, describe_action and call_action. */
const DISCOVERY = "discovery";
/** Every action's tool. */
const ALL = "all";

/** Segments that are the API's own plumbing rather than an area of the merchant's store. */
const CORE_SEGMENTS = new Set(["help", "jobs", "exports"]);

/** An action's area: its name's first segment, or core for the plumbing every area needs. */
function actionArea(action: AnyAction): string {
  const segment = action.name.split(".")[0] ?? "";
  return CORE_SEGMENTS.has(segment) ? CORE : segment;
}

interface ToolSelection {
  /** Areas whose actions are listed as tools. */
  areas: ReadonlySet<string>;
  /** Whether the discovery tools are listed. */
  discovery: boolean;
}

/** The toolsets a client may name: the catalog's areas, core, discovery and all. */
function toolsetNames(catalog: ToolCatalog): string[] {
  const areas = new Set([...catalog.byName.values()].map(actionArea));
  areas.add(CORE);
  return [ALL, ...[...areas].sort(), DISCOVERY];
}

/**
 * Reads a toolsets list (comma-separated). Absent or empty: the discovery tools alone. Naming any
 * area adds core too, since its writes answer job handles that only jobs_get reads.
 */
export function parseToolsets(catalog: ToolCatalog, text: string | undefined): { selection: ToolSelection } | { error: string } {
  const names = (text ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  if (names.length === 0) return { selection: { areas: new Set(), discovery: true } };
  const known = toolsetNames(catalog);
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) return { error: `toolsets must be one of: ${known.join(", ")}` };
  const areas = new Set(names.includes(ALL) ? known.filter((name) => name !== ALL && name !== DISCOVERY) : names.filter((name) => name !== DISCOVERY));
  if (areas.size > 0) areas.add(CORE);
  return { selection: { areas, discovery: names.includes(DISCOVERY) } };
}

/** What one selection lists and lets be called, with its tools/list answer serialised once. */
export interface ToolView {
  catalog: ToolCatalog;
  tools: Tool[];
  /** The listed action tools by name: a tools/call naming another is an unknown tool. */
  actions: ReadonlyMap<string, AnyAction>;
  discovery: boolean;
  /** The JSON text of tools/list's result, `{"tools":[...]}`. */
  listResult(): string;
}

const views = new WeakMap<ToolCatalog, Map<string, ToolView>>();

/** The view of a selection, built once per catalog (one per process) and selection. */
export function toolView(catalog: ToolCatalog, selection: ToolSelection): ToolView {
  const key = `${[...selection.areas].sort().join(",")}|${String(selection.discovery)}`;
  let byKey = views.get(catalog);
  if (!byKey) views.set(catalog, (byKey = new Map<string, ToolView>()));
  const cached = byKey.get(key);
  if (cached) return cached;
  const actions = new Map([...catalog.byName].filter(([, action]) => selection.areas.has(actionArea(action))));
  const tools = [...catalog.tools.filter((tool) => actions.has(tool.name)), ...(selection.discovery ? DISCOVERY_TOOLS : [])];
  let json: string | undefined;
  const view: ToolView = { catalog, tools, actions, discovery: selection.discovery, listResult: () => (json ??= JSON.stringify({ tools })) };
  byKey.set(key, view);
  return view;
}
