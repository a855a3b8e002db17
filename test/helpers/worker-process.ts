import { type ChildProcess, spawn } from "node:child_process";

export interface WorkerProcess {
  child: ChildProcess;
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/**
 * Starts a worker fixture (a script under test/fixtures that prints "worker ready") in its own
 * process, as the Procfile's worker runs, and waits until it is ready. `children` collects it, so
 * the test file's afterAll can SIGKILL whatever is left.
 */
export async function startWorkerProcess(script: string, env: NodeJS.ProcessEnv, children: ChildProcess[]): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  // Its log (stdout, as the service logs) is shown when a level is asked for (FIXTURE_LOG_LEVEL).
  if (process.env.FIXTURE_LOG_LEVEL) child.stdout?.pipe(process.stderr);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("worker ready")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`worker exited with ${String(code)} before it was ready`)));
  });
  return { child, exited };
}
