// `npm run mcp`: the same tools over stdio, acting for the shop of MCP_API_KEY.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { pino } from "pino";
import { createRegistry } from "../action-registry.ts";
import { loadConfig } from "../config.ts";
import { Dispatcher } from "../core/dispatcher.ts";
import { createPool, describeDatabase, resolveDatabase, startedHere } from "../runtime/database.ts";
import { createServices } from "../runtime/services.ts";
import { createMcpServer } from "./server.ts";
import { toolCatalog } from "./tools.ts";

const config = loadConfig();
// stdout carries the protocol: logs go to stderr.
const log = pino({ level: config.LOG_LEVEL === "info" ? "warn" : config.LOG_LEVEL }, pino.destination(2));
// npm 11 writes its script banner ("> preorder-bis-api@... mcp") to stdout before this process
// starts, unless its log level is silent (or its output JSON, which moves the banner to stderr).
// Too late to take back; telling the host's log how to get a clean stream is what is left.
if (process.env.npm_lifecycle_event === "mcp" && process.env.npm_config_loglevel !== "silent" && process.env.npm_config_json !== "true") {
  log.warn("npm wrote its script banner to stdout, which is not JSON-RPC: start the server with `npm run --silent mcp`");
}
const token = process.env.MCP_API_KEY;
if (!token) {
  log.fatal("MCP_API_KEY is required: the API key of the shop the tools act for");
  process.exit(2);
}
const database = await resolveDatabase(config, log);
// One it did not find running is not the service's: said on stderr (the host's log), with what to set.
if (startedHere(database)) log.warn(`MCP server using ${describeDatabase(database)}`);
const pool = createPool(database.url, 4, log);
const registry = createRegistry();
const services = createServices(config, log);
let released: Promise<void> | undefined;
// What this process opened closes on every way out, the embedded server it started included.
const release = () => (released ??= services.close().then(() => pool.end()).then(() => database.embedded?.stop()));
/** Exits with `code` once what this process opened is closed. */
const fail = async (message: string, code: number, error?: unknown): Promise<never> => {
  log.fatal(error === undefined ? {} : { err: error }, message);
  await release().catch((stopError: unknown) => log.error({ err: stopError }, "MCP shutdown failed"));
  process.exit(code);
};
const dispatcher = new Dispatcher({ registry, pool, config, log, services });
const authenticated = await dispatcher.authenticate(token).catch((error: unknown) => fail(`MCP server could not open ${describeDatabase(database)}`, 1, error));
if (!authenticated) await fail(`MCP_API_KEY is missing or invalid: no live key of that value in ${describeDatabase(database)}`, 2);
// MCP_TOOLSETS: the toolsets to list (comma-separated, as ?toolsets= over HTTP); unset: the discovery tools.
const server = createMcpServer(dispatcher, toolCatalog(registry.actions), token, process.env.MCP_TOOLSETS);
const transport = new StdioServerTransport();
transport.onclose = () => void release();
await server.connect(transport);

// The session ends with its client: once stdin ends (the client exited or closed the pipe) or a
// signal arrives, nothing more can be asked, and the pool's idle connections would keep the
// process alive for good. Close, let running queries end, exit.
let exiting = false;
const exit = (reason: string) => {
  if (exiting) return;
  exiting = true;
  log.info({ reason }, "MCP session over: closing");
  server
    .close()
    .then(release)
    .then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, "MCP shutdown failed");
        process.exit(1);
      },
    );
};
process.stdin.once("end", () => exit("stdin ended"));
process.stdin.once("close", () => exit("stdin closed"));
process.once("SIGTERM", () => exit("SIGTERM"));
process.once("SIGINT", () => exit("SIGINT"));
