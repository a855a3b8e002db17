import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Dispatcher } from "../core/dispatcher.ts";
import { MESSAGES } from "../core/errors.ts";
import { V2_BASE_PATH } from "../core/manifest.ts";
import { CALL_ACTION, findAction } from "../mcp/discovery.ts";
import { createMcpServer } from "../mcp/server.ts";
import { type ToolCatalog, toolCatalog, validArguments } from "../mcp/tools.ts";
import { type ToolView, parseToolsets, toolView } from "../mcp/toolsets.ts";
import { requestToken } from "./token.ts";

/** MCP 2025-06-18 removed JSON-RPC batching: one array of 64 tools/list asked 64 copies of the list. */
const BATCH_REFUSED = "Invalid Request: batches are not supported, send one JSON-RPC message per request";

type Message = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: { name?: unknown } } };

const isMessage = (value: unknown): value is Message => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Whether the message is a tools/call of an action this view lets be called (directly or through
 * call_action): the dispatcher charges that call as the action. Every other message (initialize,
 * tools/list, search_actions, an unknown tool, arguments that are not an object) is charged here as a read.
 */
function runsAction(view: ToolView, message: unknown): boolean {
  if (!isMessage(message) || message.method !== "tools/call") return false;
  const name = message.params?.name;
  // A call the MCP server refuses as invalid params runs nothing: charged here as a read.
  if (typeof name !== "string" || !validArguments(message.params?.arguments)) return false;
  if (view.actions.has(name)) return true;
  const target = message.params?.arguments?.name;
  return view.discovery && name === CALL_ACTION && typeof target === "string" && findAction(view.catalog, target) !== undefined;
}

/**
 * The id of a tools/list request that the SDK's transport would accept as it is (the Accept,
 * Content-Type and protocol version it checks), so its answer can be the list serialised once;
 * undefined for anything else, which the SDK answers (errors included).
 */
function plainToolsList(request: FastifyRequest, message: unknown): string | number | undefined {
  if (!isMessage(message) || message.jsonrpc !== "2.0" || message.method !== "tools/list") return undefined;
  const id = message.id;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isInteger(id))) return undefined;
  const accept = request.headers.accept ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return undefined;
  if (!/^application\/json\s*(;|$)/i.test(request.headers["content-type"] ?? "")) return undefined;
  const version = request.headers["mcp-protocol-version"];
  if (version !== undefined && (typeof version !== "string" || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return undefined;
  return id;
}

function toolsetsParam(query: unknown): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.toolsets;
  if (Array.isArray(value)) return value.map(String).join(",");
  return typeof value === "string" ? value : undefined;
}

/**
 * MCP over Streamable HTTP at /api/v2/external/mcp, stateless: each POST gets its own server and
 * transport; there is no SSE stream to GET. `?toolsets=` chooses the tools (src/mcp/toolsets.ts). Every request is charged to the
 * key's budget: a tool call as its action (by the dispatcher), anything else as a read, here.
 */
export function mountMcp(app: FastifyInstance, dispatcher: Dispatcher, actions: ToolCatalog | Parameters<typeof toolCatalog>[0]): void {
  const catalog = "tools" in actions ? actions : toolCatalog(actions);
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    // Stateless, the server never sends on its own: the SDK would hold a GET open as an SSE stream
    // forever (a socket and a server each), so GET and DELETE are 405 as MCP allows, before any lookup.
    if (request.method !== "POST") {
      return reply.code(405).header("allow", "POST").send({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "Method not allowed: POST one JSON-RPC message" } });
    }
    const token = requestToken(request);
    if (!token) return reply.code(401).send({ errors: [MESSAGES.unauthorized] });
    let body: unknown;
    let parsed = true;
    try {
      body = JSON.parse(typeof request.body === "string" ? request.body : "");
    } catch {
      parsed = false;
    }
    const toolsets = parseToolsets(catalog, toolsetsParam(request.query));
    const view = "selection" in toolsets ? toolView(catalog, toolsets.selection) : undefined;

    let headers: Record<string, string> = {};
    if (view && parsed && runsAction(view, body)) {
      if (!(await dispatcher.authenticate(token))) return reply.code(401).send({ errors: [MESSAGES.unauthorized] });
    } else {
      const charged = await dispatcher.charge(token, request.id);
      if (charged.status !== 200) return reply.code(charged.status).headers(charged.headers).send(charged.body);
      headers = charged.headers;
    }

    if (!parsed) return reply.code(400).headers(headers).send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: MESSAGES.invalidJson } });
    if (!view) return reply.code(422).headers(headers).send({ errors: [(toolsets as { error: string }).error] });
    if (Array.isArray(body)) return reply.code(400).headers(headers).send({ jsonrpc: "2.0", id: null, error: { code: -32600, message: BATCH_REFUSED } });

    const listId = plainToolsList(request, body);
    if (listId !== undefined) {
      return reply
        .code(200)
        .headers(headers)
        .type("application/json")
        .send(`{"result":${view.listResult()},"jsonrpc":"2.0","id":${JSON.stringify(listId)}}`);
    }

    const server = createMcpServer(dispatcher, catalog, token, view);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    reply.hijack();
    // A hijacked reply writes none of fastify's headers: these go on the raw response, which the transport's answer keeps.
    for (const [name, value] of Object.entries({ "x-request-id": request.id, ...headers })) reply.raw.setHeader(name, value);
    await transport.handleRequest(request.raw, reply.raw, body);
  };
  app.route({ method: ["POST", "GET", "DELETE"], url: `${V2_BASE_PATH}/mcp`, handler });
}
