// `npm run mcp`: the same tools over stdio, acting for the shop of MCP_API_KEY.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { pino } from "pino";
import { createRegistry } from "../actions/index.ts";
import { loadConfig } from "../config.ts";
import { Dispatcher } from "../core/dispatcher.ts";
import { createPool, resolveDatabase } from "../runtime/database.ts";
import { createMcpServer } from "./server.ts";
import { toolCatalog } from "./tools.ts";

const config = loadConfig();
// stdout carries the protocol: logs go to stderr.
const log = pino({ level: config.LOG_LEVEL === "info" ? "warn" : config.LOG_LEVEL }, pino.destination(2));
const token = process.env.MCP_API_KEY;
if (!token) {
  log.fatal("MCP_API_KEY is required: the API key of the shop the tools act for");
  process.exit(2);
}
const database = await resolveDatabase(config, log);
const pool = createPool(database.url, 4, log);
const registry = createRegistry();
const dispatcher = new Dispatcher({ registry, pool, config, log });
if (!(await dispatcher.authenticate(token))) {
  log.fatal("MCP_API_KEY is missing or invalid");
  process.exit(2);
}
const server = createMcpServer(dispatcher, toolCatalog(registry.actions), token);
const transport = new StdioServerTransport();
transport.onclose = () => {
  void pool.end().then(() => database.embedded?.stop());
};
await server.connect(transport);
