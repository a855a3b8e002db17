import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { ACTIONS } from "../src/action-registry.ts";
import { hashApiKey } from "../src/db/api-keys.ts";
import { ERROR_META_KEY, toolCatalog } from "../src/mcp/tools.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv();

/** One JSON-RPC message posted to the endpoint with the test's key: the HTTP status and the parsed answer. */
async function rpc(message: unknown, toolsets?: string): Promise<{ status: number; body: unknown }> {
  const url = new URL(`${env.app.origin}/api/v2/external/mcp`);
  if (toolsets !== undefined) url.searchParams.set("toolsets", toolsets);
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-auth-token": env.key },
    body: JSON.stringify(message),
  });
  return { status: response.status, body: await response.json() };
}

/** A client of the endpoint; `toolsets`: the ?toolsets= it asks (none: the default, discovery tools). */
async function connect(headers: Record<string, string>, toolsets?: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  const url = new URL(`${env.app.origin}/api/v2/external/mcp`);
  if (toolsets !== undefined) url.searchParams.set("toolsets", toolsets);
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

describe("MCP over Streamable HTTP", () => {
  it("lists every action as a tool with ?toolsets=all, with its schema and hints", async () => {
    const client = await connect({ "X-Auth-Token": env.key }, "all");
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
    const client = await connect({ Authorization: `Bearer ${env.key}` }, "all");
    const result = await client.callTool({ name: "back_in_stock_templates_get", arguments: { stage: "1", locale: "de" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ stage: "reminder", locale: "de", enabled: false });
    const updated = await client.callTool({ name: "account_languages_update", arguments: { app_locale: "es" } });
    expect(updated.structuredContent).toMatchObject({ app_locale: "es" });
    await client.close();
  });

  it("answers expected failures as tool errors with the API's messages", async () => {
    const client = await connect({ "X-Auth-Token": env.key }, "account");
    const invalid = await client.callTool({ name: "account_languages_update", arguments: { app_locale: 7, nope: true } });
    expect(invalid.isError).toBe(true);
    expect(invalid.content).toEqual([{ type: "text", text: "422: app_locale must be a locale; nope is not allowed" }]);
    const missing = await client.callTool({ name: "jobs_get", arguments: {} });
    expect(missing.content).toEqual([{ type: "text", text: "422: job_id is required" }]);
    const unknown = await client.callTool({ name: "jobs_get", arguments: { job_id: "00000000-0000-0000-0000-000000000000" } });
    expect(unknown.content).toEqual([{ type: "text", text: "404: Job not found: 00000000-0000-0000-0000-000000000000" }]);
    await client.close();
  });

  it("answers a call without arguments as HTTP answers a request without a body (decision 0195)", async () => {
    const client = await connect({ "X-Auth-Token": env.key }, "all");
    const absent = await client.callTool({ name: "account_languages_update" });
    expect(absent).toMatchObject({ isError: true, content: [{ type: "text", text: "400: Request body is not valid JSON" }] });
    expect(absent._meta?.[ERROR_META_KEY]).toEqual({ status: 400, errors: ["Request body is not valid JSON"] });
    const created = await client.callTool({ name: "preorders_offers_create" });
    expect(created.content).toEqual([{ type: "text", text: "400: Request body is not valid JSON" }]);
    // Arguments, even none, are a body: as `{}` over HTTP.
    expect((await client.callTool({ name: "account_languages_update", arguments: {} })).isError).toBeFalsy();
    expect((await client.callTool({ name: "preorders_offers_create", arguments: {} })).content).toEqual([{ type: "text", text: "422: name is required" }]);
    // An action whose fields are all optional runs without arguments.
    const exported = await client.callTool({ name: "preorders_reports_by_offer_export" });
    expect(exported.isError).toBeFalsy();
    expect(exported.structuredContent).toMatchObject({ job_id: expect.any(String) as unknown });
    await client.close();
    const discovery = await connect({ "X-Auth-Token": env.key });
    const viaCall = await discovery.callTool({ name: "call_action", arguments: { name: "account.languages.update" } });
    expect(viaCall.content).toEqual([{ type: "text", text: "400: Request body is not valid JSON" }]);
    await discovery.close();
  });

  it("gives tool errors to a client that listed the tools (it checks structuredContent against outputSchema)", async () => {
    const client = await connect({ "X-Auth-Token": env.key }, "all");
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

  it("answers tools/call with arguments that are not an object, or an unknown tool, -32602 Invalid params; a tool's own failures stay tool errors", async () => {
    const before = await charged(env.key);
    const cases: [unknown, string][] = [
      ["x", "a string"],
      [[1], "an array"],
      [5, "a number"],
      [null, "null"],
    ];
    for (const [args, kind] of cases) {
      const answer = await rpc({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "account_languages_update", arguments: args } }, "all");
      expect(answer).toEqual({
        status: 200,
        body: { jsonrpc: "2.0", id: 7, error: { code: -32602, message: `Invalid params: arguments must be an object of the tool's arguments by name, not ${kind}` } },
      });
    }
    // Through the discovery tools too, and a name that is not a string.
    expect((await rpc({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "call_action", arguments: "x" } })).body).toMatchObject({ error: { code: -32602 } });
    expect((await rpc({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: 5 } }, "all")).body).toEqual({
      jsonrpc: "2.0",
      id: 9,
      error: { code: -32602, message: "Invalid params: name must be the tool's name as a string, not a number" },
    });
    // Nothing ran: each refusal was charged as a read, not as the write it named.
    expect((await charged(env.key)) - before).toBe(cases.length + 2);

    for (const toolsets of ["all", undefined]) {
      const unknown = await rpc({ jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "no_such_tool", arguments: {} } }, toolsets);
      expect(unknown).toEqual({ status: 200, body: { jsonrpc: "2.0", id: 10, error: { code: -32602, message: "Unknown tool: no_such_tool" } } });
    }
    // Other methods are still -32601, and an expected failure of a tool is still a tool error.
    expect((await rpc({ jsonrpc: "2.0", id: 11, method: "resources/list" }, "all")).body).toMatchObject({ error: { code: -32601, message: "Method not found" } });
    const client = await connect({ "X-Auth-Token": env.key }, "all");
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    const refused = await client.callTool({ name: "account_languages_update", arguments: { app_locale: 7 } });
    expect(refused).toMatchObject({ isError: true, content: [{ type: "text", text: "422: app_locale must be a locale" }] });
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

/** Points charged to the key so far, over every window (a window boundary in between loses nothing). */
async function charged(key: string): Promise<number> {
  const { rows } = await env.pool.query<{ points: number }>(
    "select coalesce(sum(w.points), 0)::int as points from rate_limit_windows w join api_keys k on k.id = w.key_id where k.key_hash = $1",
    [hashApiKey(key)],
  );
  return rows[0]?.points ?? 0;
}

const toolNameOf = (name: string) => name.replace(/\./g, "_");

describe("MCP toolsets", () => {
  it("lists only the discovery tools by default, and a tool it does not list cannot be called", async () => {
    const client = await connect({ "X-Auth-Token": env.key });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_actions", "describe_action", "call_action"]);
    expect(JSON.stringify(tools).length).toBeLessThan(10_000);
    // Not a tool of this view: a protocol error, as an unknown tool is (decision 0252).
    await expect(client.callTool({ name: "account_languages_get", arguments: {} })).rejects.toMatchObject({ code: -32602, message: "MCP error -32602: Unknown tool: account_languages_get" });
    await client.close();
  });

  it("lists the areas named in ?toolsets=, with core (help, jobs, exports)", async () => {
    const client = await connect({ "X-Auth-Token": env.key }, "preorders,back_in_stock");
    const { tools } = await client.listTools();
    const wanted = ACTIONS.filter((a) => ["preorders", "back_in_stock", "help", "jobs", "exports"].includes(a.name.split(".")[0] ?? ""));
    expect(tools.map((t) => t.name).sort()).toEqual(wanted.map((a) => toolNameOf(a.name)).sort());
    expect(tools.some((t) => t.name.startsWith("account_"))).toBe(false);
    await client.close();
  });

  it("refuses an unknown toolset with 422 naming the choices", async () => {
    const response = await fetch(`${env.app.origin}/api/v2/external/mcp?toolsets=preorders,nope`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-auth-token": env.key },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ errors: ["toolsets must be one of: all, account, back_in_stock, core, preorders, discovery"] });
  });

  it("finds actions by words with search_actions and gives one's full entry with describe_action", async () => {
    const client = await connect({ "X-Auth-Token": env.key });
    const found = await client.callTool({ name: "search_actions", arguments: { query: "list back in stock signups", limit: 3 } });
    const actions = (found.structuredContent as { actions: { name: string; description: string; input_schema: { type: string } }[] }).actions;
    expect(actions).toHaveLength(3);
    expect(actions[0]).toMatchObject({ name: "back_in_stock.signups.list", method: "GET", path: "/back_in_stock/signups", input_schema: { type: "object" } });
    expect(actions[0]?.description).not.toContain("\n");
    const described = await client.callTool({ name: "describe_action", arguments: { name: "account.languages.update" } });
    expect(described.structuredContent).toMatchObject({
      name: "account.languages.update",
      tool: "account_languages_update",
      method: "PATCH",
      cost: 2,
      input_schema: { type: "object", properties: { app_locale: {} } },
    });
    const unknown = await client.callTool({ name: "describe_action", arguments: { name: "nope.nope" } });
    expect(unknown).toMatchObject({ isError: true, content: [{ type: "text", text: "404: Action not found: nope.nope" }] });
    const invalid = await client.callTool({ name: "search_actions", arguments: { limit: 0 } });
    expect(invalid).toMatchObject({ isError: true, content: [{ type: "text", text: "422: query is required; limit must be at least 1" }] });
    await client.close();
  });

  it("runs any action with call_action, answered and charged as the action's own tool", async () => {
    const client = await connect({ "X-Auth-Token": env.key });
    const before = await charged(env.key);
    const updated = await client.callTool({ name: "call_action", arguments: { name: "account.languages.update", arguments: { app_locale: "fr" } } });
    expect(updated.isError).toBeFalsy();
    expect(updated.structuredContent).toMatchObject({ app_locale: "fr" });
    // A write costs 2 points; the tools/call itself is not charged on top.
    expect((await charged(env.key)) - before).toBe(2);
    const invalid = await client.callTool({ name: "call_action", arguments: { name: "account_languages_update", arguments: { app_locale: 7 } } });
    expect(invalid).toMatchObject({ isError: true, content: [{ type: "text", text: "422: app_locale must be a locale" }] });
    const missing = await client.callTool({ name: "call_action", arguments: { name: "jobs.get" } });
    expect(missing.content).toEqual([{ type: "text", text: "422: job_id is required" }]);
    const unknown = await client.callTool({ name: "call_action", arguments: { name: "nope.nope", arguments: {} } });
    expect(unknown.content).toEqual([{ type: "text", text: "404: Action not found: nope.nope" }]);
    await client.close();
  });
});
