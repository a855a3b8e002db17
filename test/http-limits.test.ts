import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRegistry } from "../src/action-registry.ts";
import { Dispatcher } from "../src/core/dispatcher.ts";
import { createHttpServer } from "../src/http/server.ts";
import { useTestEnv } from "./helpers/fixture.ts";

// The service's own HTTP server (with its request timeout), not the test app's.
const env = useTestEnv({ app: false, shop: false, poolSize: 2, config: { REQUEST_TIMEOUT_MS: "500" } });
let http: ReturnType<typeof createHttpServer>;
let port: number;

beforeAll(async () => {
  const { config, log } = env;
  http = createHttpServer({
    dispatcher: new Dispatcher({ registry: createRegistry(), pool: env.pool, config, log }),
    log,
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    healthy: async () => true,
  });
  port = Number(new URL(await http.listen({ port: 0, host: "127.0.0.1" })).port);
});

afterAll(async () => {
  await http.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after answering. */
  closed: boolean;
}

/**
 * Opens a raw connection, lets `talk` write to it, and reads until the server closes it. Gives up
 * (closed: false) after `patienceMs`, so a server that never answers fails the test quickly.
 */
async function rawExchange(talk: (write: (chunk: string) => void, stop: Promise<void>) => void, patienceMs = 5_000): Promise<RawAnswer> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => undefined); // a reset after the answer changes nothing here
  let received = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => (received += chunk));
  let stopTalking!: () => void;
  const stop = new Promise<void>((resolve) => (stopTalking = resolve));
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), patienceMs);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
    talk((chunk) => socket.writable && socket.write(chunk), stop);
  });
  stopTalking();
  socket.destroy();
  const [head = "", ...rest] = received.split("\r\n\r\n");
  const [statusLine = "", ...headerLines] = head.split("\r\n");
  const headers = Object.fromEntries(
    headerLines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
  );
  return { status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n"), closed };
}

const postHead = "POST /api/v2/external/account/languages HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n";

describe("a request body that does not arrive in time", () => {
  it("is answered 408 in the v2 envelope and disconnected when the client stops sending", async () => {
    const answer = await rawExchange((write) => write(`${postHead}{"app_locale":`));
    expect(answer).toMatchObject({ status: 408, closed: true, headers: { "content-type": "application/json" } });
    expect(JSON.parse(answer.body)).toEqual({ errors: ["Request timed out"] });
  });

  it("is answered 408 when the client trickles the body", async () => {
    const answer = await rawExchange((write, stop) => {
      write(postHead);
      const timer = setInterval(() => write(" "), 50);
      void stop.then(() => clearInterval(timer));
    });
    expect(answer).toMatchObject({ status: 408, closed: true });
    expect(JSON.parse(answer.body)).toEqual({ errors: ["Request timed out"] });
  });

  it("leaves a request whose body arrives at once alone", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v2/external/account/languages`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ app_locale: "de" }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ errors: ["X-Auth-Token is missing or invalid"] });
  });
});

describe("request headers over node's limit (16 KiB)", () => {
  it("are answered 431 in the v2 envelope, as JSON, and the connection closed", async () => {
    const answer = await rawExchange((write) => write(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${"a".repeat(20_000)}\r\n\r\n`));
    expect(answer).toMatchObject({ status: 431, closed: true, headers: { "content-type": "application/json" } });
    expect(JSON.parse(answer.body)).toEqual({ errors: ["Request headers are too large"] });
  });
});

describe("bytes that are not HTTP", () => {
  it("are answered 400 in the v2 envelope and the connection closed", async () => {
    const answer = await rawExchange((write) => write("HELLO THERE\r\n\r\n"));
    expect(answer).toMatchObject({ status: 400, closed: true, headers: { "content-type": "application/json" } });
    expect(JSON.parse(answer.body)).toEqual({ errors: ["Request is not valid HTTP"] });
  });
});
