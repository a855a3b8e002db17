import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type EmbeddedServer, ensureEmbeddedPostgres } from "../src/db/embedded.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
// A directory of its own as the working directory: DATA_DIR's default (.data) is under it. Open
// to the postgres user, which runs the embedded server when the tests run as root.
const cwd = mkdtempSync(path.join(os.tmpdir(), "cli-db-"));
chmodSync(cwd, 0o755);
const dataDir = path.join(cwd, ".data");
const pgdata = path.join(dataDir, "pg");
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run cli` / `npm run mcp` as a newcomer runs them: no DATABASE_URL, no DATA_DIR. */
function run(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, EMBEDDED_PG_PORT: "0", ...env };
  for (const name of ["DATABASE_URL", "DATA_DIR", "LOG_LEVEL"]) delete childEnv[name];
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [path.join(ROOT, script), ...args], { cwd, env: childEnv }, (error, stdout, stderr) => {
      const code = error === null ? 0 : error.code;
      if (typeof code !== "number") reject(new Error(`did not exit normally: ${String(error?.message)}`, { cause: error }));
      else resolve({ code, stdout, stderr });
    });
    child.stdin?.end();
  });
}

/** The embedded server under `dataDir` is down: pg_ctl stop removes its postmaster.pid. */
const stopped = () => !existsSync(path.join(pgdata, "postmaster.pid"));

describe("the CLI and the MCP server without DATABASE_URL or DATA_DIR", () => {
  it("the CLI says it started an embedded server of its own (a new, empty cluster) before answering, and stops it", async () => {
    const result = await run("src/cli/main.ts", ["jobs", "list"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("No jobs found.\n");
    expect(result.stderr).toMatch(
      new RegExp(
        `^cli: using the embedded PostgreSQL in ${pgdata.replaceAll(".", "\\.")} \\(postgres://postgres@127\\.0\\.0\\.1:\\d+/app\\), started now as a new, empty cluster: no service runs on this DATA_DIR; it is stopped on exit\\. If the service runs with another DATA_DIR or DATABASE_URL, set the same here\\.\\n$`,
      ),
    );
    expect(stopped()).toBe(true);
    // Again: the cluster is kept, not new, and still said and stopped.
    const again = await run("src/cli/main.ts", ["jobs", "list"]);
    expect(again.stderr).toContain("started now: no service runs on this DATA_DIR; it is stopped on exit.");
    expect(stopped()).toBe(true);
  });

  it("the MCP server with a key the database does not know says which database it looked in, and stops the server it started", async () => {
    const result = await run("src/mcp/stdio.ts", [], { MCP_API_KEY: "pbk_not_a_key_of_this_database" });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    const messages = result.stderr
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages.some((m) => m.startsWith(`MCP server using the embedded PostgreSQL in ${pgdata} (`) && m.includes("started now"))).toBe(true);
    expect(messages).toContainEqual(expect.stringMatching(new RegExp(`^MCP_API_KEY is missing or invalid: no live key of that value in the embedded PostgreSQL in ${pgdata.replaceAll(".", "\\.")} `)));
    expect(stopped()).toBe(true);
  });

  it("both use the server a running service holds, quietly, and leave it running", async () => {
    // What `npm start` does on this DATA_DIR: the server is started and held by a live process (this one).
    const server: EmbeddedServer = await ensureEmbeddedPostgres({ dataDir, port: 0 });
    try {
      expect(server.origin).toBe("started");
      const result = await run("src/cli/main.ts", ["jobs", "list"]);
      expect(result).toEqual({ code: 0, stdout: "No jobs found.\n", stderr: "" });
      const mcp = await run("src/mcp/stdio.ts", [], { MCP_API_KEY: "pbk_not_a_key_of_this_database" });
      expect(mcp.code).toBe(2);
      expect(mcp.stderr).not.toContain("started now");
      expect(mcp.stderr).toContain(`which another process runs`);
      expect(stopped()).toBe(false);
    } finally {
      await server.stop();
    }
    expect(stopped()).toBe(true);
  });
});
