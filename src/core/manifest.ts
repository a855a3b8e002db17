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

export function manifestEntry(action: AnyAction): ManifestEntry {
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

/** True when `path` is `prefix` itself or lies below it, segment by segment. */
export function underPrefix(path: string, prefix: string): boolean {
  const trimmed = prefix.replace(/\/+$/, "");
  if (trimmed === "") return true;
  return path === trimmed || path.startsWith(`${trimmed}/`);
}

export class Manifest {
  private readonly entries: ManifestEntry[];

  constructor(actions: readonly AnyAction[]) {
    this.entries = actions.map(manifestEntry).sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  }

  document(prefix = ""): { version: string; base_path: string; actions: ManifestEntry[] } {
    return {
      version: API_VERSION,
      base_path: V2_BASE_PATH,
      actions: this.entries.filter((e) => underPrefix(e.path, prefix)),
    };
  }
}
