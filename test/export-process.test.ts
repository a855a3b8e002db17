import { fork } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ExportProcessData } from "../src/preorders/reports/export-process.ts";

const CHILD = fileURLToPath(new URL("../src/preorders/reports/export-process.ts", import.meta.url));

describe("the report export's own process", () => {
  it("exits, without an error, when the worker that forked it goes away mid-export", { timeout: 15_000 }, async () => {
    // A database that accepts the connection and never answers: the export is under way, stuck.
    const sockets = new Set<net.Socket>();
    const server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
    });
    const connected = new Promise<void>((resolve) => server.once("connection", () => resolve()));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const child = fork(CHILD, [], { stdio: ["ignore", "pipe", "pipe", "ipc"] });
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      const data = { connectionString: `postgres://nobody@127.0.0.1:${port}/none`, query: { text: "select 1", values: [] }, shopId: "s", jobId: null, filename: "x.csv", contentType: "text/csv" };
      child.send({ type: "start", data: data as unknown as ExportProcessData });
      await connected;
      // What the child sees when its worker is SIGKILLed: the IPC channel ends.
      child.disconnect();
      expect(await exited).toBe(0);
      expect(stderr).not.toMatch(/ERR_IPC|Error/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
