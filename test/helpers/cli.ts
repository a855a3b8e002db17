import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The CLI (`npm run cli -- ...`) as a real child process, on the pinned Node that runs vitest,
 * against `databaseUrl`, with `env` added to this process's environment (its LOG_LEVEL dropped).
 */
export function runCli(databaseUrl: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, ...env };
  delete childEnv.LOG_LEVEL;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["src/cli/main.ts", ...args], { cwd: ROOT, env: childEnv }, (error, stdout, stderr) => {
      const code = error === null ? 0 : error.code;
      if (typeof code !== "number") {
        // Not an exit status: the process could not be spawned or was killed.
        reject(new Error(`CLI did not exit normally: ${String(error?.message)}`, { cause: error }));
        return;
      }
      resolve({ code, stdout, stderr });
    });
  });
}

/** The CLI's standard output; a non-zero exit rejects with its standard error. */
export async function cliOutput(databaseUrl: string, args: readonly string[]): Promise<string> {
  const result = await runCli(databaseUrl, args);
  if (result.code !== 0) throw new Error(`CLI failed: ${result.stderr}`);
  return result.stdout;
}
