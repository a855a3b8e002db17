import type { FastifyInstance } from "fastify";
import { V1_ACTIONS } from "../preorders/offers/actions/v1.ts";
import type { Dispatcher } from "../core/dispatcher.ts";
import type { Issue } from "../core/errors.ts";
import { Registry } from "../core/registry.ts";
import { requestToken } from "./token.ts";

export const V1_BASE_PATH = "/api/v1/external";

/**
 * v1's error envelope: `{ "errors": { "<field>": ["message"] } }`. A 422 lists its issues under
 * their fields (the `selling_plan.` wrapper dropped, the body itself under `base`), taken from the
 * issues as they are, so a field name holding a space or a dot lands whole; any other error
 * (401, 404, 409, 429, 500) is one message under `base`.
 */
export function v1Errors(status: number, body: unknown, issues: readonly Issue[]): { errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (status === 422 && issues.length > 0) {
    for (const issue of issues) {
      const field = issue.path.replace(/^selling_plan\./, "");
      add(field === "" ? "base" : field, issue.message);
    }
    return { errors };
  }
  const messages = (body as { errors?: unknown } | undefined)?.errors;
  for (const message of Array.isArray(messages) ? messages.map(String) : [String(messages)]) add("base", message);
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
        return reply.code(status).headers(result.headers).send(ok ? result.body : v1Errors(result.status, result.body, result.issues));
      },
    });
  }
}
