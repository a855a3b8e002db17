import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Dispatcher } from "../core/dispatcher.ts";
import { API_VERSION } from "../core/manifest.ts";
import { callDiscoveryTool } from "./discovery.ts";
import { ProtocolError, type ToolCatalog, callTool, toolCallParams } from "./tools.ts";
import { type ToolView, parseToolsets, toolView } from "./toolsets.ts";

const INSTRUCTIONS =
  "Tools for a merchant's store: preorder offers, back-in-stock alerts and account settings. Each action tool is one API action; writes answer the committed state or a job handle whose status is read with jobs_get.";

const DISCOVERY_INSTRUCTIONS =
  " Find actions with search_actions, read one with describe_action, run it with call_action (job handles: call_action with name jobs.get).";

/** The view of a toolsets list (MCP_TOOLSETS for stdio); an unknown toolset is a configuration error. */
function toolViewOf(catalog: ToolCatalog, toolsets: string | undefined): ToolView {
  const parsed = parseToolsets(catalog, toolsets);
  if ("error" in parsed) throw new Error(parsed.error);
  return toolView(catalog, parsed.selection);
}

/**
 * An MCP server over the action registry, acting for the holder of `token`: the tools of `tools`,
 * a view (HTTP, chosen per request) or a toolsets list as MCP_TOOLSETS spells it (stdio).
 */
export function createMcpServer(dispatcher: Dispatcher, catalog: ToolCatalog, token: string | undefined, tools?: ToolView | string): Server {
  const view = typeof tools === "object" ? tools : toolViewOf(catalog, tools);
  const server = new Server(
    { name: "preorder-back-in-stock-api", version: API_VERSION },
    {
      capabilities: { tools: {} },
      instructions: view.discovery ? INSTRUCTIONS + DISCOVERY_INSTRUCTIONS : INSTRUCTIONS,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: view.tools }));
  // tools/call is answered by the fallback handler, not setRequestHandler(CallToolRequestSchema): the
  // SDK checks a registered request against its schema before the handler runs and answers a
  // mismatch (`arguments: "x"`) -32603 Internal error with zod's issues as the message. Here the
  // params are checked first, -32602 Invalid params saying what is wrong (decision 0252).
  server.fallbackRequestHandler = async (request) => {
    if (request.method !== "tools/call") throw new ProtocolError(ErrorCode.MethodNotFound, "Method not found");
    const { name, args } = toolCallParams(request.params);
    const discovered = view.discovery ? await callDiscoveryTool(dispatcher, view.catalog, token, name, args) : undefined;
    return discovered ?? callTool(dispatcher, view.actions, token, name, args);
  };
  return server;
}
