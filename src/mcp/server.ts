import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Dispatcher } from "../core/dispatcher.ts";
import { API_VERSION } from "../core/manifest.ts";
import { type ToolCatalog, callTool } from "./tools.ts";

/** An MCP server over the action registry, acting for the holder of `token`. */
export function createMcpServer(dispatcher: Dispatcher, catalog: ToolCatalog, token: string | undefined): Server {
  const server = new Server(
    { name: "preorder-back-in-stock-api", version: API_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        "Tools for a merchant's store: preorder offers, back-in-stock alerts and account settings. Each tool is one API action; writes answer the committed state or a job handle whose status is read with jobs_get.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalog.tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(dispatcher, catalog, token, request.params.name, request.params.arguments),
  );
  return server;
}
