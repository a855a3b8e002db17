import net from "node:net";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createTestDatabase } from "./helpers/db.ts";

/**
 * A test file's last step is `await pool.end(); await database.drop()`. pg-pool's end() resolves
 * once its clients are told to end, before their Terminate has reached the server; a forced drop
 * then answers them with FATAL 57P01, which the pool emits as an 'error' nobody listens to, and
 * vitest fails the whole run on it (CI, stop 36). The drop must wait for closing connections.
 */

/** A TCP relay to PostgreSQL that holds what the client sends for `delayMs` before passing it on. */
async function slowRelay(target: URL, delayMs: number): Promise<{ port: number; close(): Promise<void> }> {
  const [host, port] = [target.hostname, Number(target.port || 5432)];
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect(port, host);
    sockets.add(client).add(upstream);
    client.on("data", (chunk) => setTimeout(() => upstream.writable && upstream.write(chunk), delayMs));
    client.on("end", () => setTimeout(() => upstream.end(), delayMs));
    upstream.pipe(client);
    for (const s of [client, upstream]) s.on("error", () => sockets.forEach((x) => x.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      sockets.forEach((s) => s.destroy());
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe("the test database's drop", () => {
  it("waits for a pool's connections that are still closing instead of killing them", async () => {
    const database = await createTestDatabase();
    const url = new URL(database.url);
    const relay = await slowRelay(url, 300);
    url.host = `127.0.0.1:${relay.port}`;
    const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
    const errors: unknown[] = [];
    pool.on("error", (error) => errors.push(error));
    // A client is removed once its connection has ended: after any FATAL the server sent it.
    const ended = new Set<pg.Client>();
    const bothEnded = new Promise<void>((resolve) => pool.on("remove", (client) => ended.add(client).size === 2 && resolve()));
    try {
      await Promise.all([pool.query("select 1"), pool.query("select 2")]);
      await pool.end(); // resolves before the relay has passed the Terminate on
      await database.drop();
      await bothEnded;
      expect(errors).toEqual([]);
    } finally {
      await relay.close();
    }
  });
});
