import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { ACTIONS } from "../src/actions/index.ts";
import { ERROR_META_KEY, toolCatalog } from "../src/mcp/tools.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv();

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${env.app.origin}/api/v2/external/mcp`), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

describe("MCP over Streamable HTTP", () => {
  it("lists every action as a tool, with its schema and hints", async () => {
    const client = await connect({ "X-Auth-Token": env.key });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(ACTIONS.map((a) => a.name.replace(/\./g, "_")).sort());
    const get = tools.find((t) => t.name === "back_in_stock_templates_get");
    expect(get?.inputSchema.required).toEqual(["stage", "locale"]);
    expect(get?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    const update = tools.find((t) => t.name === "account_languages_update");
    expect(update?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(Object.keys(update?.inputSchema.properties ?? {})).toEqual(["app_locale", "multi_language_enabled", "product_translations_enabled"]);
    await client.close();
  });

  it("runs a tool through the dispatcher, with Authorization: Bearer", async () => {
    const client = await connect({ Authorization: `Bearer ${env.key}` });
    const result = await client.callTool({ name: "back_in_stock_templates_get", arguments: { stage: "1", locale: "de" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ stage: "reminder", locale: "de", enabled: false });
    const updated = await client.callTool({ name: "account_languages_update", arguments: { app_locale: "es" } });
    expect(updated.structuredContent).toMatchObject({ app_locale: "es" });
    await client.close();
  });

  it("answers expected failures as tool errors with the API's messages", async () => {
    const client = await connect({ "X-Auth-Token": env.key });
    const invalid = await client.callTool({ name: "account_languages_update", arguments: { app_locale: 7, nope: true } });
    expect(invalid.isError).toBe(true);
    expect(invalid.content).toEqual([{ type: "text", text: "422: app_locale must be a locale; nope is not allowed" }]);
    const missing = await client.callTool({ name: "jobs_get", arguments: {} });
    expect(missing.content).toEqual([{ type: "text", text: "422: job_id is required" }]);
    const unknown = await client.callTool({ name: "jobs_get", arguments: { job_id: "00000000-0000-0000-0000-000000000000" } });
    expect(unknown.content).toEqual([{ type: "text", text: "404: Job not found: 00000000-0000-0000-0000-000000000000" }]);
    await client.close();
  });

  it("gives tool errors to a client that listed the tools (it checks structuredContent against outputSchema)", async () => {
    const client = await connect({ "X-Auth-Token": env.key });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "account_languages_update")?.outputSchema).toMatchObject({ type: "object" });
    const invalid = await client.callTool({ name: "account_languages_update", arguments: { app_locale: 7 } });
    expect(invalid).toMatchObject({ isError: true, content: [{ type: "text", text: "422: app_locale must be a locale" }] });
    expect(invalid.structuredContent).toBeUndefined();
    expect(invalid._meta?.[ERROR_META_KEY]).toEqual({
      status: 422,
      errors: ["app_locale must be a locale"],
      issues: [{ path: "app_locale", message: "must be a locale" }],
    });
    const unknown = await client.callTool({ name: "preorders_offers_get", arguments: { id: "00000000-0000-0000-0000-000000000000" } });
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toEqual([{ type: "text", text: "404: Preorder offer not found: 00000000-0000-0000-0000-000000000000" }]);
    await client.close();
  });

  it("refuses a request without a valid key", async () => {
    const response = await fetch(`${env.app.origin}/api/v2/external/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-auth-token": "pbk_wrong" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ errors: ["X-Auth-Token is missing or invalid"] });
  });

  it("refuses two actions that would share a tool name", () => {
    const [first] = ACTIONS;
    if (!first) throw new Error("no actions");
    expect(() => toolCatalog([{ ...first, name: "a.b_c" }, { ...first, name: "a_b.c" }])).toThrow(
      "Actions a.b_c and a_b.c map to one MCP tool name a_b_c",
    );
  });
});
