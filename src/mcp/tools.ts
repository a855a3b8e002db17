import { randomUUID } from "node:crypto";
import { type CallToolResult, ErrorCode, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AnyAction } from "../core/action.ts";
import type { Dispatcher } from "../core/dispatcher.ts";
import { manifestEntry } from "../core/manifest.ts";
import { type Issue, issueText } from "../core/errors.ts";
import { UNSTORABLE_TEXT, unstorable } from "../core/text-input.ts";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";

/** MCP tool names allow letters, digits, `_` and `-`: dots of action names become `_`. */
export function toolName(action: AnyAction): string {
  return action.name.replace(/\./g, "_");
}

/** The tool's arguments: path parameters and the request's fields side by side, as one object. */
function inputSchema(action: AnyAction): Tool["inputSchema"] {
  const entry = manifestEntry(action);
  const request = entry.request_schema as { properties?: Record<string, object>; required?: string[] };
  const params = action.params ? (z.toJSONSchema(action.params, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, object> }) : {};
  return {
    type: "object",
    properties: { ...params.properties, ...request.properties },
    required: [...entry.path_params, ...(request.required ?? [])],
    additionalProperties: false,
  };
}

/**
 * MCP's outputSchema must describe an object: declared for actions whose answer is a JSON
 * object (structuredContent carries it), left out for the rest (an export's CSV text).
 */
function outputSchema(action: AnyAction): Tool["outputSchema"] {
  const schema = manifestEntry(action).response_schema as { type?: unknown } | null;
  if (schema?.type !== "object") return undefined;
  return schema as Tool["outputSchema"];
}

/** The description, its rules one per line, and the phrases an agent may match it by, on one last line. */
export function toolDescription(action: AnyAction): string {
  return [
    action.description,
    ...(action.notes ?? []).map((n) => `- ${n}`),
    ...(action.aliases?.length ? [`Said as: ${action.aliases.map((a) => `"${a}"`).join(", ")}`] : []),
  ].join("\n");
}

export interface ToolCatalog {
  tools: Tool[];
  byName: Map<string, AnyAction>;
}

/** Every action as a tool; fails fast when two actions would share a tool name. */
export function toolCatalog(actions: readonly AnyAction[]): ToolCatalog {
  const byName = new Map<string, AnyAction>();
  const tools: Tool[] = [];
  for (const action of actions) {
    const name = toolName(action);
    const taken = byName.get(name);
    if (taken) throw new Error(`Actions ${taken.name} and ${action.name} map to one MCP tool name ${name}`);
    byName.set(name, action);
    const output = outputSchema(action);
    tools.push({
      name,
      title: `${action.method} ${action.path}`,
      description: toolDescription(action),
      inputSchema: inputSchema(action),
      ...(output ? { outputSchema: output } : {}),
      annotations: {
        readOnlyHint: action.kind === "read",
        destructiveHint: action.method === "DELETE" || /(^|\.)(delete|bulk_delete|cancel|bulk_cancel|revoke)$/.test(action.name),
        idempotentHint: action.method === "GET" || action.method === "PUT" || action.method === "PATCH",
        openWorldHint: false,
      },
    });
  }
  return { tools, byName };
}

/**
 * A JSON-RPC error answered as it is: its code, and its message without the "MCP error <code>: "
 * that the SDK's McpError puts in front (the SDK answers any thrown error's `code` and `message`).
 */
export class ProtocolError extends Error {
  readonly code: number;

  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

const kindOf = (value: unknown): string => (value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`);

/** Whether a tools/call's `arguments` is one MCP allows: absent, or an object of the tool's arguments. */
export function validArguments(args: unknown): args is Record<string, unknown> | undefined {
  return args === undefined || (typeof args === "object" && args !== null && !Array.isArray(args));
}

/**
 * A tools/call's params, checked as MCP defines them (`name` a string, `arguments` an object when
 * given); anything else is a protocol error, -32602 Invalid params, with what was wrong (decision 0252).
 */
export function toolCallParams(params: unknown): { name: string; args: Record<string, unknown> | undefined } {
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params: tools/call takes an object with the tool's name and its arguments, not ${kindOf(params)}`);
  }
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== "string") throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params: name must be the tool's name as a string, not ${kindOf(name)}`);
  if (!validArguments(args)) {
    throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params: arguments must be an object of the tool's arguments by name, not ${kindOf(args)}`);
  }
  return { name, args };
}

/**
 * Runs one tool call (`actions`: the tools that may be called, by name) through the dispatcher,
 * exactly as the HTTP layer would run the request.
 * Expected failures (4xx) come back as tool errors; a tool `actions` does not hold is a protocol
 * error (-32602 Unknown tool), thrown.
 */
export async function callTool(
  dispatcher: Dispatcher,
  actions: ReadonlyMap<string, AnyAction>,
  token: string | undefined,
  name: string,
  /** Absent (a call without arguments) is a request without a body: decision 0195. */
  args?: Record<string, unknown>,
): Promise<CallToolResult> {
  const action = actions.get(name);
  if (!action) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const rest: Record<string, unknown> = { ...args };
  const refused: Issue[] = [];
  const path = action.path.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_match, param: string) => {
    const value = rest[param];
    delete rest[param];
    if (value === undefined || value === null || value === "") {
      refused.push({ path: param, message: "is required" });
      return "_";
    }
    // a lone surrogate cannot be percent-encoded (encodeURIComponent throws): refuse it as the dispatcher would
    if (typeof value === "string" && unstorable(value)) {
      refused.push({ path: param, message: UNSTORABLE_TEXT });
      return "_";
    }
    return encodeURIComponent(typeof value === "string" ? value : JSON.stringify(value));
  });
  if (refused.length > 0) return refusal(422, refused.map(issueText), refused);
  const result = await dispatcher.dispatch({
    method: action.method,
    path,
    token,
    query: action.method === "GET" || action.method === "DELETE" ? rest : {},
    body: { parsed: args === undefined ? undefined : rest },
    requestId: randomUUID(),
  });
  if (result.status >= 200 && result.status < 300) {
    // A raw (non-JSON) answer, such as a CSV download, is given as its text.
    if (Buffer.isBuffer(result.body)) return { content: [{ type: "text", text: result.body.toString("utf8") }] };
    if (result.body instanceof Readable) return { content: [{ type: "text", text: (await buffer(result.body)).toString("utf8") }] };
    const structured = result.body !== null && typeof result.body === "object" && !Array.isArray(result.body);
    return {
      content: [{ type: "text", text: JSON.stringify(result.body) }],
      ...(structured ? { structuredContent: result.body as Record<string, unknown> } : {}),
    };
  }
  return refusal(result.status, (result.body as { errors?: string[] }).errors ?? [], result.issues);
}

/** Where a tool error's details go: `_meta` under this key, since structuredContent must match the tool's outputSchema. */
export const ERROR_META_KEY = "preorder-api/error";

/**
 * A tool error: the v2 messages as text, and the status with a 422's fields (path, message) in
 * `_meta`. Not as structuredContent: clients (the official SDK's among them) check structuredContent
 * against the tool's outputSchema even on an error, and would reject the answer instead of showing it.
 */
export function refusal(status: number, errors: string[], issues: Issue[]): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `${status}: ${errors.join("; ")}` }],
    _meta: { [ERROR_META_KEY]: { status, errors, ...(issues.length > 0 ? { issues } : {}) } },
  };
}
