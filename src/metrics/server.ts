import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exposition } from "./registry.ts";

/**
 * A worker-only process's /metrics (WORKER_METRICS_PORT): the same registry the web process serves
 * on its own listener. Anything else is a 404. Answers the address and a close function.
 */
export async function serveMetrics(port: number, host: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (request.method !== "GET" || path !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    exposition().then(
      ({ contentType, text }) => response.writeHead(200, { "content-type": contentType }).end(text),
      () => response.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("metrics unavailable\n"),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
