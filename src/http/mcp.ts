import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Dispatcher } from "../core/dispatcher.ts";
import { MESSAGES } from "../core/errors.ts";
import { V2_BASE_PATH } from "../core/manifest.ts";
import { createMcpServer } from "../mcp/server.ts";
import { type ToolCatalog, toolCatalog } from "../mcp/tools.ts";
import { requestToken } from "./token.ts";

/**
 * MCP over Streamable HTTP at /api/v2/external/mcp, stateless: each POST gets its own server and
 * transport. The key is checked once per request; each tool call is then dispatched (and charged)
 * like the HTTP request it stands for.
 */
export function mountMcp(app: FastifyInstance, dispatcher: Dispatcher, actions: ToolCatalog | Parameters<typeof toolCatalog>[0]): void {
  const catalog = "tools" in actions ? actions : toolCatalog(actions);
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const token = requestToken(request);
    if (!token || !(await dispatcher.authenticate(token))) {
      return reply.code(401).send({ errors: [MESSAGES.unauthorized] });
    }
    let body: unknown;
    if (request.method === "POST") {
      try {
        body = JSON.parse(typeof request.body === "string" ? request.body : "");
      } catch {
        return reply.code(400).send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: MESSAGES.invalidJson } });
      }
    }
    const server = createMcpServer(dispatcher, catalog, token);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, body);
  };
  app.route({ method: ["POST", "GET", "DELETE"], url: `${V2_BASE_PATH}/mcp`, handler });
}
