import { z } from "zod";
import { type AnyAction, COST } from "./action.ts";

export const API_VERSION = "2.0.0-beta";
export const V2_BASE_PATH = "/api/v2/external";

export interface ManifestEntry {
  name: string;
  method: string;
  path: string;
  description: string;
  aliases: string[];
  notes: string[];
  path_params: string[];
  request_schema: unknown;
  /** JSON Schema of a success's body; null where the action declares none. */
  response_schema: unknown;
  cost: number;
  async: boolean;
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([a-z_][a-z0-9_]*)\}/g)].map((m) => m[1] ?? "");
}

/** JSON Schema of what the client sends: generated from the very schema that validates it. */
function requestSchema(action: AnyAction): unknown {
  if (!action.input) return { type: "object", properties: {}, additionalProperties: false };
  const { $schema: _ignored, ...schema } = z.toJSONSchema(action.input, { io: "input", unrepresentable: "any" });
  return schema;
}

/** JSON Schema of what a success answers, from the action's output schema. */
export function responseSchema(action: AnyAction): unknown {
  if (!action.output) return null;
  const { $schema: _ignored, ...schema } = z.toJSONSchema(action.output, { io: "output", unrepresentable: "any" });
  return schema;
}

const SUMMARY_MAX = 160;

/** Up to the first `.`, `!` or `?` followed by a space, other than an abbreviation's (e.g., i.e.). */
function firstSentence(text: string): string {
  for (const end of text.matchAll(/[.!?](?= )/g)) {
    const upTo = text.slice(0, end.index + 1);
    if (!/\b(e\.g|i\.e|etc|vs|cf)\.$/i.test(upTo)) return upTo;
  }
  return text;
}

/** One line for lists: the description's first sentence, at most SUMMARY_MAX characters. */
export function summary(description: string): string {
  const flat = description.replace(/\s+/g, " ").trim();
  const sentence = firstSentence(flat);
  if (sentence.length <= SUMMARY_MAX) return sentence;
  const cut = sentence.slice(0, SUMMARY_MAX - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), SUMMARY_MAX / 2))}…`;
}

/** The compact manifest's entry (`/help?format=compact`): enough to pick an action, not to call it. */
interface CompactEntry {
  name: string;
  method: string;
  path: string;
  description: string;
}

const compactEntry = (entry: ManifestEntry): CompactEntry => ({
  name: entry.name,
  method: entry.method,
  path: entry.path,
  description: summary(entry.description),
});

// Every entry is built once per action and process: /help, the public documents and the MCP tools
// all start from it, and converting the zod schemas is the expensive part (about 0.5 ms an action).
const entries = new WeakMap<AnyAction, ManifestEntry>();

/** The action's manifest entry, shared: callers must not change it. */
export function manifestEntry(action: AnyAction): ManifestEntry {
  let entry = entries.get(action);
  if (!entry) entries.set(action, (entry = buildEntry(action)));
  return entry;
}

function buildEntry(action: AnyAction): ManifestEntry {
  return {
    name: action.name,
    method: action.method,
    path: action.path,
    description: action.description,
    aliases: action.aliases ?? [],
    notes: action.notes ?? [],
    path_params: pathParams(action.path),
    request_schema: requestSchema(action),
    response_schema: responseSchema(action),
    cost: COST[action.kind],
    async: action.async ?? false,
  };
}

const segments = (path: string): string[] => path.replace(/\/+$/, "").split("/").filter((segment) => segment !== "");
const isParameter = (segment: string): boolean => /^\{[a-z0-9_]+\}$/.test(segment);

/**
 * The entries at or below `prefix`, segment by segment. A prefix may name a resource by its real
 * id (`/preorders/offers/<id>/widget`, as a client that holds the id writes it): where no entry
 * has the prefix's segment as written, a path parameter (`{id}`) stands for it. Where some entry
 * has it as written (`/jobs/export`...), only those match.
 */
function underPrefix<E extends { path: string }>(entries: readonly E[], prefix: string): E[] {
  const wanted = segments(prefix);
  let candidates = entries.map((entry) => ({ entry, parts: segments(entry.path) })).filter(({ parts }) => parts.length >= wanted.length);
  wanted.forEach((segment, i) => {
    const literal = candidates.filter(({ parts }) => parts[i] === segment);
    candidates = literal.length > 0 ? literal : candidates.filter(({ parts }) => isParameter(parts[i] ?? ""));
  });
  return candidates.map(({ entry }) => entry);
}

export class Manifest {
  private readonly entries: ManifestEntry[];
  private compactEntries: CompactEntry[] | undefined;

  constructor(actions: readonly AnyAction[]) {
    this.entries = actions.map(manifestEntry).sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  }

  document(prefix = ""): { version: string; base_path: string; actions: ManifestEntry[] } {
    return {
      version: API_VERSION,
      base_path: V2_BASE_PATH,
      actions: underPrefix(this.entries, prefix),
    };
  }

  /** The same list with name, method, path and a one-line description per action only. */
  compact(prefix = ""): { version: string; base_path: string; actions: CompactEntry[] } {
    this.compactEntries ??= this.entries.map(compactEntry);
    return {
      version: API_VERSION,
      base_path: V2_BASE_PATH,
      actions: underPrefix(this.compactEntries, prefix),
    };
  }
}
