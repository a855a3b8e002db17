import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import net from "node:net";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { startupLine } from "../src/runtime/demo.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({ app: false, shop: false, dataDir: true });
const DEMO_KEY = "pbk_startup_line_test_key_0123456789abcdef";

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    await exited;
  }
  child = undefined;
});

/** `npm start`'s process (node src/main.ts) on free ports; answers its stdout lines as they come. */
async function start(extra: Record<string, string>): Promise<string[]> {
  const ports = { PORT: String(await freePort()), PLATFORM_EMULATOR_PORT: String(await freePort()), PROVIDER_EMULATOR_PORT: String(await freePort()) };
  child = spawn(process.execPath, ["src/main.ts"], {
    env: { ...process.env, DATABASE_URL: env.db.url, DATA_DIR: env.dataDir, HOST: "127.0.0.1", LOG_LEVEL: "silent", ...ports, ...extra },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => lines.push(line));
  return lines;
}

function field(line: string, name: string): string {
  const value = new RegExp(`${name} (\\S+)`).exec(line)?.[1];
  if (!value) throw new Error(`no ${name} in: ${line}`);
  return value;
}

describe("npm start's start-up line", () => {
  it("names the API, console, storefront and metrics URLs, each answering, and the demo key that works", async () => {
    const lines = await start({ DEMO_API_KEY: DEMO_KEY });
    const line = await waitFor("the start-up line", async () => lines.find((l) => l.startsWith("Ready: ")));
    const api = field(line, "API");
    const origin = new URL(api).origin;
    expect(api).toBe(`${origin}/api/v2/external`);
    expect(field(line, "console")).toBe(`${origin}/ops`);
    expect(field(line, "metrics")).toBe(`${origin}/metrics`);
    expect(field(line, "demo key")).toBe(DEMO_KEY);
    const storefront = field(line, "storefront");
    expect(storefront).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/products\/[a-z0-9-]+$/);
    expect(new URL(storefront).port).not.toBe(new URL(origin).port);

    // Every URL is real: the compact help with the printed key, the console's login, a product page, the metrics.
    const help = await fetch(`${api}/help?format=compact`, { headers: { "x-auth-token": field(line, "demo key") } });
    expect(help.status).toBe(200);
    expect((await fetch(field(line, "console"), { redirect: "manual" })).status).toBeLessThan(400);
    const page = await fetch(storefront);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const metrics = await fetch(field(line, "metrics"));
    expect(metrics.status).toBe(200);
  });

  it("without the key (stored only as a hash), says how to get one", () => {
    const line = startupLine({ service: "http://127.0.0.1:3000", storefront: "http://127.0.0.1:3001/products/p" }, { shopId: "s-1" });
    expect(line).toContain("demo key: printed on the start that created the demo shop");
    expect(line).toContain("npm run cli -- keys create --shop s-1");
    expect(line).not.toContain("pbk_");
  });
});
