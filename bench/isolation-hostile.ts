// bench:isolation's hostile tenant (shop A), in a process of its own so that its load never
// shares the event loop of the client measuring shop B. Until a line arrives on stdin (or stdin
// closes), at the same time:
//   - POST /back_in_stock/signups/bulk_notify for every waiting signup of BENCH_A_VARIANT (once),
//     whose alerts render the costly template the bench stored for shop A;
//   - PATCH /back_in_stock/templates/initial/en with that template, again and again;
//   - BENCH_MCP_LOOPS loops POSTing a JSON-RPC batch of 64 tools/list requests to /mcp.
// Then aborts what is still in flight (counted as `unanswered after N s`, its age when stopped) and
// prints `BENCH_HOSTILE_DONE <json>`: the count of each answer's status, per kind of request.
import readline from "node:readline";
import { positiveIntEnv } from "./lib.ts";

const base = process.env.BENCH_URL ?? "";
const key = process.env.BENCH_A_KEY ?? "";
const variantId = process.env.BENCH_A_VARIANT ?? "";
const template = process.env.BENCH_A_TEMPLATE ?? "";
const mcpLoops = positiveIntEnv("BENCH_MCP_LOOPS", 4);
if (!base || !key || !variantId || !template) throw new Error("BENCH_URL, BENCH_A_KEY, BENCH_A_VARIANT and BENCH_A_TEMPLATE are required");

const statuses: Record<string, Record<string, number>> = { bulk_notify: {}, patch_template: {}, mcp_batch: {} };
const count = (kind: string, status: string) => {
  const byStatus = (statuses[kind] ??= {});
  byStatus[status] = (byStatus[status] ?? 0) + 1;
};

const abortAll = new AbortController();

async function call(kind: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<void> {
  const sent = performance.now();
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json", "x-auth-token": key, ...headers },
      body: JSON.stringify(body),
      signal: abortAll.signal,
    });
    await response.arrayBuffer();
    count(kind, String(response.status));
  } catch (error) {
    if (abortAll.signal.aborted) count(kind, `unanswered after ${((performance.now() - sent) / 1000).toFixed(1)} s`);
    else count(kind, `error ${error instanceof Error ? error.message : String(error)}`);
  }
}

let stopping = false;
const stopped = new Promise<void>((resolve) => {
  const lines = readline.createInterface({ input: process.stdin });
  lines.once("line", () => resolve());
  lines.once("close", () => resolve());
}).then(() => {
  stopping = true;
  abortAll.abort();
});

const batch = Array.from({ length: 64 }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/list", params: {} }));
const loop = async (once: () => Promise<void>) => {
  while (!stopping) await once();
};
process.stdout.write("BENCH_HOSTILE_STARTED\n");
await Promise.all([
  call("bulk_notify", "POST", "/api/v2/external/back_in_stock/signups/bulk_notify", { variant_id: variantId }),
  loop(() => call("patch_template", "PATCH", "/api/v2/external/back_in_stock/templates/initial/en", { email: { body: template } })),
  ...Array.from({ length: mcpLoops }, () =>
    loop(() => call("mcp_batch", "POST", "/api/v2/external/mcp", batch, { accept: "application/json, text/event-stream" })),
  ),
  stopped,
]);
process.stdout.write(`BENCH_HOSTILE_DONE ${JSON.stringify(statuses)}\n`);
