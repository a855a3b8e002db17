import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createShopWithKey } from "./helpers/app.ts";
import { MIGRATION_LOCK_ID } from "../src/db/migrate.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ app: false, shop: false, dataDir: true });

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Every process below `root`, from /proc (parent pid is the 4th field of /proc/PID/stat). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited while we looked
    }
    // The command name (2nd field) may hold spaces and parentheses: fields start after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    // A zombie still has a /proc entry but is gone for our purpose: it serves nothing.
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

function serviceEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: env.db.url,
    DATA_DIR: env.dataDir,
    HOST: "127.0.0.1",
    LOG_LEVEL: process.env.FIXTURE_LOG_LEVEL ?? "silent",
    ...extra,
  };
}

async function healthz(port: number): Promise<number | undefined> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).status;
  } catch {
    return undefined;
  }
}

interface Proc {
  pid: number;
  cmd: string;
}

/** SIGTERM to npm's pid only, as docker stop and process supervisors do; answers the processes that were below it. */
async function terminateNpm(npm: ChildProcess): Promise<Proc[]> {
  const tree = descendants(npm.pid as number).map((pid) => ({ pid, cmd: cmdline(pid) }));
  const exited = once(npm, "exit");
  npm.kill("SIGTERM");
  await exited;
  return tree;
}

describe("SIGTERM to the npm script's pid", () => {
  const leftovers: number[] = [];

  afterAll(() => {
    // Before the fix the service outlives npm: do not leave it running on the machine.
    for (const pid of leftovers) if (alive(pid)) process.kill(pid, "SIGKILL");
  });

  it.each([
    ["run web", ["run", "web"]],
    ["start", ["start"]],
  ])("stops the node process that `npm %s` started, and its port closes", async (_name, args) => {
    const port = await freePort();
    // Every emulator on a free port: npm start's fixed defaults (3001, 3002) may be taken by another run.
    const extra: Record<string, string> = { PORT: String(port), PLATFORM_EMULATOR_PORT: String(await freePort()), PROVIDER_EMULATOR_PORT: String(await freePort()) };
    const npm = spawn("npm", args, { env: serviceEnv(extra), stdio: "ignore" });
    await waitFor("the service to answer /healthz", async () => ((await healthz(port)) === 200 ? true : undefined));
    const tree = await terminateNpm(npm);
    leftovers.push(...tree.map((p) => p.pid));
    expect(tree.some((p) => p.cmd.includes("src/main.ts"))).toBe(true);

    // npm waits for its own child: once npm has exited, nothing it started may remain.
    expect(tree.filter((p) => alive(p.pid)).map((p) => p.cmd)).toEqual([]);
    expect(await healthz(port)).toBeUndefined();
  });

  it("stops the node process that `npm run worker` started", async () => {
    const npm = spawn("npm", ["run", "worker"], { env: serviceEnv({ LOG_LEVEL: "info" }), stdio: ["ignore", "pipe", "ignore"] });
    // graphile-worker logs this line once it holds its LISTEN connection.
    const lines = createInterface({ input: npm.stdout as NodeJS.ReadableStream });
    const ready = new Promise<void>((resolve) => lines.on("line", (line) => line.includes("looking for jobs") && resolve()));
    await ready;
    const tree = await terminateNpm(npm);
    leftovers.push(...tree.map((p) => p.pid));
    expect(tree.some((p) => p.cmd.includes("src/main.ts --worker"))).toBe(true);
    expect(tree.filter((p) => alive(p.pid)).map((p) => p.cmd)).toEqual([]);
  });
});

describe("SIGTERM while the service is still starting", () => {
  it("waits for the start to finish, then stops gracefully (exit 0), instead of dying mid-start", async () => {
    // Hold the migrations' advisory lock: `npm start` waits in migrate(), inside startService.
    const admin = new pg.Client({ connectionString: env.db.url });
    await admin.connect();
    try {
      await admin.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
      const extra = { PORT: String(await freePort()), PLATFORM_EMULATOR_PORT: String(await freePort()), PROVIDER_EMULATOR_PORT: String(await freePort()), LOG_LEVEL: "info" };
      const child = spawn(process.execPath, ["src/main.ts"], { env: serviceEnv(extra), stdio: ["ignore", "pipe", "ignore"] });
      const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
      const output: string[] = [];
      createInterface({ input: child.stdout }).on("line", (line) => output.push(line));
      try {
        await waitFor("the start to wait for the migration lock", async () => {
          const { rows } = await admin.query<{ n: number }>(
            `select count(*)::int as n from pg_locks
             where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`,
          );
          return (rows[0]?.n ?? 0) > 0 ? true : undefined;
        });
        child.kill("SIGTERM");
        // Let the start go on; the signal's stop runs once it has finished.
        await admin.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]);
        expect(await exited).toEqual([0, null]);
        expect(output.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
    } finally {
      await admin.end();
    }
  });
});

/** The command the README gives for MCP over stdio (its commands table), as argv. */
function readmeMcpCommand(): [string, ...string[]] {
  const line = readFileSync("README.md", "utf8")
    .split("\n")
    .find((text) => text.includes("MCP tools over stdio"));
  const command = /`(npm [^`]*mcp)`/.exec(line ?? "")?.[1];
  if (!command) throw new Error("README.md gives no npm command for MCP over stdio");
  const [file, ...args] = command.split(" ");
  return [file ?? "npm", ...args];
}

/** The service's environment without the npm settings of whatever npm started the tests (`npm test -s` passes its log level down). */
function npmFreeEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(serviceEnv(extra)).filter(([name]) => !name.toLowerCase().startsWith("npm_")));
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1.0.0" } },
};

/** Runs an npm command that starts the MCP server, sends `initialize`, closes stdin once answered; answers stdout and stderr. */
async function mcpSession(argv: string[], extra: Record<string, string>): Promise<{ stdout: string; stderr: string; exit: [number | null, NodeJS.Signals | null] }> {
  const admin = new pg.Pool({ connectionString: env.db.url, max: 1 });
  const { apiKey } = await createShopWithKey(admin);
  await admin.end();
  const [command = "npm", ...args] = argv;
  const child = spawn(command, args, { env: npmFreeEnv({ MCP_API_KEY: apiKey, ...extra }), stdio: ["pipe", "pipe", "pipe"] });
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    await waitFor("the answer to initialize", async () => {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${stderr}`);
      return stdout.includes('"id":1') && stdout.endsWith("\n") ? true : undefined;
    });
    child.stdin.end();
    return { stdout, stderr, exit: await exited };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

describe("MCP over stdio", () => {
  it("writes nothing but JSON-RPC to stdout when started with the README's command (npm's script banner goes to stdout)", async () => {
    const session = await mcpSession(readmeMcpCommand(), {});
    expect(session.exit).toEqual([0, null]);
    const lines = session.stdout.split("\n");
    expect(lines.pop()).toBe(""); // every message ends with a newline
    const parsed = lines.map((line): unknown => {
      try {
        return JSON.parse(line);
      } catch {
        return line; // not JSON: shown as it is in the failure
      }
    });
    expect(parsed).toEqual([expect.objectContaining({ jsonrpc: "2.0", id: 1, result: expect.objectContaining({ serverInfo: expect.anything() as unknown }) as unknown })]);
  });

  it("tells the host's log how to get a clean stream when plain `npm run mcp` started it", async () => {
    const session = await mcpSession(["npm", "run", "mcp"], { LOG_LEVEL: "info" });
    expect(session.stdout.startsWith("\n> preorder-bis-api@")).toBe(true);
    expect(session.stderr).toContain("start the server with `npm run --silent mcp`");
  });

  it("exits 0 once its client closes stdin", async () => {
    const admin = new pg.Pool({ connectionString: env.db.url, max: 1 });
    const { apiKey } = await createShopWithKey(admin);
    await admin.end();
    const child = spawn(process.execPath, ["src/mcp/stdio.ts"], {
      env: serviceEnv({ MCP_API_KEY: apiKey }),
      stdio: ["pipe", "pipe", "inherit"],
    });
    const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    try {
      const lines = createInterface({ input: child.stdout });
      child.stdin.write(`${JSON.stringify(initialize)}\n`);
      const [line] = (await once(lines, "line")) as [string];
      expect(JSON.parse(line)).toMatchObject({ id: 1, result: { serverInfo: { name: expect.any(String) as string } } });

      child.stdin.end();
      // Before the fix the process outlives its client; the bound keeps the failure short.
      const outcome = await Promise.race([exited, new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 10_000))]);
      expect(outcome).toEqual([0, null]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});
