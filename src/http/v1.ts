import type { FastifyInstance } from "fastify";
import { V1_ACTIONS } from "../actions/preorders/offers/v1.ts";
import type { Dispatcher } from "../core/dispatcher.ts";
import { Registry } from "../core/registry.ts";
import { requestToken } from "./token.ts";

export const V1_BASE_PATH = "/api/v1/external";

/**
 * v1's error envelope: `{ "errors": { "<field>": ["message"] } }`. A validation message starts
 * with its field (`<field> <message>`, the `selling_plan.` wrapper dropped); any other error
 * (401, 404, 409, 429, 500) is one message under `base`.
 */
export function v1Errors(status: number, body: unknown): { errors: Record<string, string[]> } {
  const messages = (body as { errors?: unknown } | undefined)?.errors;
  const list = Array.isArray(messages) ? messages.map(String) : [String(messages)];
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  for (const message of list) {
    if (status !== 422) {
      add("base", message);
      continue;
    }
    const space = message.indexOf(" ");
    const field = (space < 0 ? message : message.slice(0, space)).replace(/^selling_plan\./, "");
    add(field === "body" ? "base" : field, space < 0 ? "is invalid" : message.slice(space + 1));
  }
  return { errors };
}

/**
 * The legacy v1 interface under /api/v1/external: its actions run through the same dispatcher as
 * v2 (same key, same rate-limit budget, one transaction per write), over a registry of their own
 * so that they appear in neither /help nor MCP. A create answers 201 with the plan.
 */
export function mountV1(app: FastifyInstance, dispatcher: Dispatcher): void {
  const v1 = dispatcher.withRegistry(new Registry(V1_ACTIONS));
  for (const action of V1_ACTIONS) {
    app.route({
      method: action.method,
      url: `${V1_BASE_PATH}${action.path}`,
      handler: async (request, reply) => {
        const result = await v1.dispatch({
          method: action.method,
          path: action.path,
          token: requestToken(request),
          query: {},
          body: { raw: typeof request.body === "string" ? request.body : undefined },
          requestId: request.id,
        });
        const ok = result.status < 300;
        const status = ok && action.method === "POST" ? 201 : result.status;
        return reply.code(status).headers(result.headers).send(ok ? result.body : v1Errors(result.status, result.body));
      },
    });
  }
}
