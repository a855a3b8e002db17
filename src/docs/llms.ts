import type { AnyAction } from "../core/action.ts";
import { API_VERSION, V2_BASE_PATH, manifestEntry } from "../core/manifest.ts";

const RULES = `## How to call it

- Base path: \`${V2_BASE_PATH}\`. Every request needs the header \`X-Auth-Token: <API key>\`.
- Discover actions with \`GET ${V2_BASE_PATH}/help\` (narrow with \`?prefix=/preorders/offers\` or \`GET <scope>/help\`,
  shorten to one line per action with \`?format=compact\`);
  each entry has the method, path, JSON Schema of the request and of the success's answer, aliases
  (phrases to match a request to the action), notes (its rules), cost and whether it is async.
- Reads answer 200 with the payload itself. Writes answer 202 with the committed resource, or a job
  handle \`{ "job_id", "status_url" }\`: poll \`GET ${V2_BASE_PATH}/jobs/{job_id}\` until status is
  \`completed\`, \`failed\` or \`cancelled\`.
- Errors are \`{ "errors": ["..."] }\`: 400 bad JSON, 401 key missing or invalid, 404 unknown action or
  resource, 409 refused state change (one-line reason), 422 validation (one message per field;
  unknown fields are refused), 429 rate limit (wait \`Retry-After\` seconds; also for requests
  without a valid key from an address that sent 60 of them in a minute: a valid key is still served), 500 with a request id.
- Rate limit: 360 points per 60 seconds per key; reads cost 1, writes 2. Headers
  \`X-RateLimit-Remaining\` tells the budget left and \`X-RateLimit-Reset\` when it comes back (a Unix timestamp in seconds).
- Settings are changed with one deep-partial PATCH per capability; state changes and side effects
  are named POST actions (for example \`POST /preorders/offers/{id}/enable\`).
- MCP: every action is also a tool at \`POST ${V2_BASE_PATH}/mcp\` (Streamable HTTP, same key, one
  JSON-RPC message per request). It lists \`search_actions\`, \`describe_action\` and \`call_action\`
  by default; \`?toolsets=preorders,back_in_stock\` (or \`account\`, \`core\`, \`discovery\`, \`all\`)
  lists those areas' tools instead.`;

/**
 * One action: its line, then (indented, so the list stays one item per action) the phrases an
 * agent may match it by, and its rules, one per line.
 */
function actionLines(actions: readonly AnyAction[]): string {
  return actions
    .map(manifestEntry)
    .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
    .map((e) =>
      [
        `- \`${e.method} ${e.path}\` (${e.name}, cost ${e.cost}${e.async ? ", async" : ""}): ${e.description}`,
        ...(e.aliases.length > 0 ? [`  - Said as: ${e.aliases.map((a) => `"${a}"`).join(", ")}`] : []),
        ...e.notes.map((n) => `  - Note: ${n}`),
      ].join("\n"),
    )
    .join("\n");
}

/** llms.txt: what an AI agent needs to use the API, rendered from the registry. */
export function llmsTxt(actions: readonly AnyAction[]): string {
  return `# Preorder, Back-in-Stock and Account Settings API (v${API_VERSION})

> An action-driven HTTP API for a merchant's store: preorder offers (selling plans), back-in-stock
> alerts (signups, e-mail and text message) and account settings.

${RULES}

## Actions

${actionLines(actions)}
`;
}

/** skill.md: the same knowledge as an agent skill, with a front matter naming it. */
export function skillMd(actions: readonly AnyAction[]): string {
  return `---
name: preorder-back-in-stock-api
description: Manage a store's preorder offers, back-in-stock alerts and account settings through the v2 API (${V2_BASE_PATH}). Use when asked to read or change preorder, back-in-stock or store language, location or market settings.
---

# Using the Preorder, Back-in-Stock and Account Settings API

1. Read \`GET ${V2_BASE_PATH}/help\` (or \`<scope>/help\`) to find the action and its request schema.
2. Send exactly the fields the schema lists: unknown fields are refused with 422.
3. For a 202 with a \`job_id\`, poll its \`status_url\` until the status is terminal.
4. On 429 wait \`Retry-After\` seconds; on 409 read the reason and change state first.

${RULES}

## Actions

${actionLines(actions)}
`;
}
