import type { AnyAction } from "../core/action.ts";
import { API_VERSION, V2_BASE_PATH, manifestEntry } from "../core/manifest.ts";

interface JsonSchemaObject {
  properties?: Record<string, unknown>;
  required?: string[];
}

const ERROR_RESPONSE = { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Errors" } } } };

/** A success that is not a JSON object (an export's file) is described by its schema's contentMediaType. */
function contentType(schema: unknown): string {
  const media = (schema as { contentMediaType?: unknown } | null)?.contentMediaType;
  return typeof media === "string" ? media : "application/json";
}

/** OpenAPI 3.1 for the v2 actions, rendered from the registry and the same zod schemas. */
export function openApiDocument(actions: readonly AnyAction[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const action of actions) {
    const entry = manifestEntry(action);
    const schema = entry.request_schema as JsonSchemaObject;
    const parameters: unknown[] = entry.path_params.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }));
    const isQuery = action.method === "GET" || action.method === "DELETE";
    if (isQuery) {
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        parameters.push({ name, in: "query", required: schema.required?.includes(name) ?? false, schema: property });
      }
    }
    const success = action.kind === "read" ? "200" : "202";
    const operations = (paths[entry.path] ??= {});
    operations[action.method.toLowerCase()] = {
      operationId: entry.name,
      summary: entry.name,
      description: entry.notes.length > 0 ? `${entry.description}\n\n${entry.notes.map((n) => `- ${n}`).join("\n")}` : entry.description,
      "x-aliases": entry.aliases,
      "x-cost": entry.cost,
      "x-async": entry.async,
      parameters,
      ...(isQuery ? {} : { requestBody: { required: action.method === "PATCH", content: { "application/json": { schema } } } }),
      responses: {
        [success]: {
          description: entry.async ? "Job handle" : action.kind === "read" ? "The resource" : "The committed resource",
          content: { [contentType(entry.response_schema)]: { schema: entry.response_schema ?? { type: "object" } } },
        },
        "400": ERROR_RESPONSE,
        "401": ERROR_RESPONSE,
        "404": ERROR_RESPONSE,
        "409": ERROR_RESPONSE,
        "422": ERROR_RESPONSE,
        "429": ERROR_RESPONSE,
        "500": ERROR_RESPONSE,
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Preorder, Back-in-Stock and Account Settings API", version: API_VERSION },
    servers: [{ url: V2_BASE_PATH }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "X-Auth-Token" } },
      schemas: {
        Errors: { type: "object", required: ["errors"], properties: { errors: { type: "array", items: { type: "string" } } } },
        JobHandle: {
          type: "object",
          required: ["job_id", "status_url"],
          properties: { job_id: { type: "string" }, status_url: { type: "string" } },
        },
      },
    },
  };
}
