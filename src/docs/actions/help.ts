import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { HELP_ACTION } from "../../core/dispatcher.ts";
import { Manifest } from "../../core/manifest.ts";

const manifests = new WeakMap<object, Manifest>();

const jsonSchema = z.record(z.string(), z.unknown()).describe("a JSON Schema (draft 2020-12)");

const fullEntry = z.strictObject({
  name: z.string().describe("dotted action name; the MCP tool name is the same with _ for ."),
  method: z.enum(["GET", "POST", "PATCH", "PUT", "DELETE"]),
  path: z.string().describe("relative to base_path, {param} placeholders"),
  description: z.string(),
  aliases: z.array(z.string()).describe("natural-language phrases for the action; not routes"),
  notes: z.array(z.string()).describe("rules and caveats, one sentence each"),
  path_params: z.array(z.string()),
  request_schema: jsonSchema.describe("JSON Schema of the query (GET, DELETE) or JSON body"),
  response_schema: jsonSchema.nullable().describe("JSON Schema of a success's body; null where the action declares none"),
  cost: z.int().min(1).describe("rate-limit points: read 1, write 2"),
  async: z.boolean().describe("true when the action answers a job handle"),
});

const compactEntry = z.strictObject({
  name: z.string().describe("dotted action name"),
  method: z.enum(["GET", "POST", "PATCH", "PUT", "DELETE"]),
  path: z.string().describe("relative to base_path, {param} placeholders"),
  description: z.string().describe("the description's first sentence (format=compact)"),
});

const manifestOutput = z.strictObject({
  version: z.string().describe("the API version label, 2.0.0-beta"),
  base_path: z.string().describe("the prefix of every path below, /api/v2/external"),
  actions: z.array(z.union([fullEntry, compactEntry])).describe("full entries, or compact ones with format=compact"),
});

export const help = defineAction({
  name: HELP_ACTION,
  method: "GET",
  path: "/help",
  description:
    "Manifest of every registered action: method, path, aliases, path parameters, JSON Schema of the request, cost in rate-limit points and whether it answers a job handle. Narrow it with ?prefix=/preorders/offers or GET <scope>/help; ?format=compact answers name, method, path and a one-line description only.",
  notes: [
    "A prefix matches whole path segments: /preorders/offers lists /preorders/offers/{id}/enable but not /preorders/offers_x.",
    "GET <scope>/help (any path followed by /help) answers the same as ?prefix=<scope>.",
    "Aliases are phrases to match what an agent or a developer wants to do; they are not paths and cannot be called.",
  ],
  aliases: ["list every api action", "show the api manifest", "what can this api do"],
  output: manifestOutput,
  kind: "read",
  input: z.strictObject({
    prefix: z.string().regex(/^(\/[A-Za-z0-9_{}.-]+)*\/?$/, "must be a path prefix such as /preorders/offers").optional(),
    format: z.enum(["full", "compact"]).optional(),
  }),
  // The help articles are searched at another path: a search here says where.
  refusedFields: Object.fromEntries(
    ["search", "query", "q"].map((field) => [field, "the help articles are searched with GET /account/help_docs?query=...; this lists the actions (prefix, format)"]),
  ),
  async handler(ctx, { input }) {
    let manifest = manifests.get(ctx.registry);
    if (!manifest) {
      manifest = new Manifest(ctx.registry.actions);
      manifests.set(ctx.registry, manifest);
    }
    return input.format === "compact" ? manifest.compact(input.prefix ?? "") : manifest.document(input.prefix ?? "");
  },
});
