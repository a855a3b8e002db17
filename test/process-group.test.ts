// `npm start` as a terminal runs it: npm leads its own process group, Ctrl-C signals the whole
// group (so node gets the terminal's SIGINT and npm's forwarded copy), and the embedded
// PostgreSQL under DATA_DIR is this process's to stop.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, readdirSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { connect, createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./helpers/wait.ts";

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** The process's state letter and parent, from /proc/PID/stat (fields after the command's last ")"). */
function stat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state = "", ppid = "0"] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state, ppid: Number(ppid) };
  } catch {
    return undefined; // gone
  }
}

/** A zombie is gone for our purpose: the detached postmaster's new parent may never reap it. */
function alive(pid: number): boolean {
  const found = stat(pid);
  return found !== undefined && found.state !== "Z";
}

/** The node process npm started (the script `exec`s it, so it is npm's child). */
function nodeChild(npmPid: number): number {
  const pid = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .find((candidate) => stat(candidate)?.ppid === npmPid && readFileSync(`/proc/${candidate}/cmdline`, "utf8").includes("src/main.ts"));
  if (pid === undefined) throw new Error(`no src/main.ts below npm (pid ${npmPid})`);
  return pid;
}

/** Whether anything accepts a TCP connection on the port. */
async function accepts(port: number): Promise<boolean> {
  const socket = connect(port, "127.0.0.1");
  try {
    await once(socket, "connect");
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

async function readyz(port: number): Promise<number | undefined> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
  } catch {
    return undefined;
  }
}

interface Postmaster {
  pid: number;
  port: number;
}

let dataDir: string;
const postmasterFile = () => path.join(dataDir, "pg", "postmaster.pid");

async function postmaster(): Promise<Postmaster | undefined> {
  const text = await readFile(postmasterFile(), "utf8").catch(() => undefined);
  const lines = text?.split("\n") ?? [];
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return Number.isInteger(pid) && pid > 0 && Number.isInteger(port) ? { pid, port } : undefined;
}

interface Started extends Spawned {
  postmaster: Postmaster;
}

const groups: ChildProcess[] = [];

interface Spawned {
  npm: ChildProcess;
  port: number;
  pgPort: number;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  output: () => string;
}

/** `npm start` leading a process group of its own, on free ports. */
async function spawnNpm(extra: Record<string, string> = {}): Promise<Spawned> {
  const port = await freePort();
  const pgPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    HOST: "127.0.0.1",
    PORT: String(port),
    EMBEDDED_PG_PORT: String(pgPort),
    PLATFORM_EMULATOR_PORT: String(await freePort()),
    PROVIDER_EMULATOR_PORT: String(await freePort()),
    LOG_LEVEL: "info",
    // The demo shop's first catalog sync may still run at the signal: the drain waits for it
    // until its abort (80% of this), which bounds the test's time, not its outcome.
    SHUTDOWN_TIMEOUT_MS: "15000",
    ...extra,
  };
  delete env.DATABASE_URL;
  const npm = spawn("npm", ["start"], { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  groups.push(npm);
  const exited = once(npm, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  let text = "";
  npm.stdout?.on("data", (chunk: Buffer) => (text += chunk.toString()));
  npm.stderr?.on("data", (chunk: Buffer) => (text += chunk.toString()));
  return { npm, port, pgPort, exited, output: () => text };
}

/** `npm start` as spawnNpm, once it answers /readyz 200. */
async function startNpm(extra: Record<string, string> = {}): Promise<Started> {
  const spawned = await spawnNpm(extra);
  await waitFor(
    "`npm start` to answer /readyz 200",
    async () => {
      if (spawned.npm.exitCode !== null) throw new Error(`npm start exited with ${spawned.npm.exitCode}:\n${spawned.output()}`);
      return (await readyz(spawned.port)) === 200 ? true : undefined;
    },
    90_000,
  );
  const server = await postmaster();
  if (!server) throw new Error(`no postmaster.pid under ${dataDir}`);
  return { ...spawned, postmaster: server };
}

/** Whether a process whose command line holds every one of `parts` runs now. */
function running(...parts: string[]): boolean {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .some((entry) => {
      try {
        const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
        return parts.every((part) => cmd.includes(part));
      } catch {
        return false; // exited while we looked
      }
    });
}

/** The messages the service logged (pino's JSON lines), in order. */
function messages(output: string): string[] {
  return output.split("\n").flatMap((line) => {
    try {
      return [(JSON.parse(line) as { msg?: string }).msg ?? ""];
    } catch {
      return []; // npm's banner, the printed keys, a line still being written
    }
  });
}

async function expectStopped(server: Postmaster): Promise<void> {
  expect(alive(server.pid)).toBe(false);
  expect(await postmaster()).toBeUndefined();
  expect(await accepts(server.port)).toBe(false);
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "process-group-"));
  // As root, PostgreSQL runs as `postgres`, which must reach DATA_DIR/pg through this directory.
  await chmod(dataDir, 0o755);
});

afterAll(async () => {
  // Before the fix the embedded server outlives npm: do not leave it running on the machine.
  for (const npm of groups) if (npm.exitCode === null && npm.signalCode === null && npm.pid) process.kill(-npm.pid, "SIGKILL");
  const server = await postmaster();
  if (server && alive(server.pid)) {
    process.kill(server.pid, "SIGINT");
    await waitFor("the leftover embedded PostgreSQL to stop", async () => (alive(server.pid) ? undefined : true), 30_000);
  }
  await rm(dataDir, { recursive: true, force: true });
});

describe("`npm start` in its own process group", () => {
  it("on Ctrl-C during the first start (initdb running), lets initdb finish, starts no listener or worker, exits 0 and stops PostgreSQL", async () => {
    // The shutdown timeout counts from the signal, and the whole start now comes first.
    const spawned = await spawnNpm({ SHUTDOWN_TIMEOUT_MS: "40000" });
    await waitFor("initdb to run", async () => (running("initdb", dataDir) ? true : undefined), 60_000);
    process.kill(-(spawned.npm.pid as number), "SIGINT");
    // Before, initdb died with the group's SIGINT (and node's second signal exited 1 at once); then,
    // the worker started after the signal and the drain waited for its jobs past the timeout.
    expect(await spawned.exited, spawned.output()).toEqual([0, null]);
    const logged = messages(spawned.output());
    expect(logged).toContain(`starting embedded PostgreSQL on 127.0.0.1:${spawned.pgPort}`);
    expect(logged).toContain("migrations applied");
    // Stopping was asked for: no new requests or jobs, so nothing that would take them is started.
    expect(logged.filter((msg) => msg === "HTTP API listening" || msg.startsWith("Worker connected"))).toEqual([]);
    expect(logged).toContain("stopped");
    expect(await postmaster()).toBeUndefined();
    expect(await accepts(spawned.pgPort)).toBe(false);
  });

  it("drains on Ctrl-C (SIGINT to the group: node gets the terminal's and npm's), exits 0 and stops its embedded PostgreSQL (the server under DATA_DIR is reused)", async () => {
    const started = await startNpm();
    process.kill(-(started.npm.pid as number), "SIGINT");
    // npm exits with its script's code: 0 here means node exited 0 too.
    expect(await started.exited, started.output()).toEqual([0, null]);
    const logged = messages(started.output());
    expect(logged).toContain("shutting down: no new requests or jobs, waiting for running ones");
    expect(logged).toContain("stopped");
    await expectStopped(started.postmaster);
  });

  it("installs the demo shop on the platform emulator through OAuth (/auth → the emulator's authorize → /auth/callback), on every start", async () => {
    const started = await startNpm();
    const installed = async () => (messages(started.output()).includes("demo shop installed on the platform emulator through OAuth") ? true : undefined);
    await waitFor("the demo shop's OAuth install to be logged", installed, 60_000);
    expect(messages(started.output())).toContain("app installed on a store");
    // The token came through the install, never printed nor logged.
    expect(started.output()).not.toMatch(/shpat_[0-9a-f]{32}/);
    process.kill(-(started.npm.pid as number), "SIGINT");
    expect(await started.exited, started.output()).toEqual([0, null]);
    await expectStopped(started.postmaster);
  });

  it("drains on `kill -TERM -- -PGID`, exits 0 and stops its embedded PostgreSQL", async () => {
    const started = await startNpm();
    process.kill(-(started.npm.pid as number), "SIGTERM");
    expect(await started.exited, started.output()).toEqual([0, null]);
    expect(messages(started.output())).toContain("stopped");
    await expectStopped(started.postmaster);
  });

  it("keeps draining through a second signal; a third exits at once with 1 and still stops PostgreSQL", async () => {
    // One signal at a time to node itself: two sent to the group at once may merge into one
    // pending signal. /readyz answers 503 for the whole drain window, so mid-drain is observable.
    const started = await startNpm({ SHUTDOWN_DRAIN_MS: "60000", SHUTDOWN_TIMEOUT_MS: "90000" });
    const node = nodeChild(started.npm.pid as number);
    const logged = (prefix: string) => async () => (messages(started.output()).some((msg) => msg.startsWith(prefix)) ? true : undefined);
    process.kill(node, "SIGINT");
    await waitFor("the drain to answer /readyz 503", async () => ((await readyz(started.port)) === 503 ? true : undefined));
    process.kill(node, "SIGINT");
    await waitFor("the second signal to be logged", logged("shutdown under way"));
    expect(await readyz(started.port)).toBe(503);

    process.kill(node, "SIGINT");
    expect(await started.exited, started.output()).toEqual([1, null]);
    expect(messages(started.output())).toContain("signal during shutdown: exiting now");
    // The forced exit asks for PostgreSQL's fast shutdown without waiting for it.
    await waitFor("the embedded PostgreSQL to stop", async () => (alive(started.postmaster.pid) ? undefined : true), 30_000);
    await expectStopped(started.postmaster);
  });
});
