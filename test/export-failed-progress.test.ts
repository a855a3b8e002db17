import type * as childProcess from "node:child_process";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { reportExportJob, runReportExport } from "../src/preorders/reports/jobs/export.ts";
import { reportBody } from "../src/preorders/reports/query.ts";
import { type JobRow, enqueueJob } from "../src/core/jobs.ts";
import type { JobRunContext } from "../src/core/job-task.ts";
import { createLogger } from "../src/logger.ts";
import { useTestEnv } from "./helpers/fixture.ts";

// The export's child process, as runReportExport forks it: the test watches it end.
const { forked } = vi.hoisted(() => ({ forked: [] as childProcess.ChildProcess[] }));
vi.mock("node:child_process", async (importOriginal) => {
  const actual = await importOriginal<typeof childProcess>();
  return {
    ...actual,
    fork: (...args: Parameters<typeof actual.fork>) => {
      const child = actual.fork(...args);
      forked.push(child);
      return child;
    },
  };
});

const env = useTestEnv({ app: false, shop: true });

describe("a report export that fails while a progress write is under way", () => {
  it("fails only once that write has landed, so the failure is the last thing recorded", async () => {
    // Queued, never run by a worker (there is none): runReportExport runs it here.
    const handle = await enqueueJob(env.pool, reportExportJob, { report: "by_offer", body: {} }, { shopId: env.shopId, maxAttempts: 3 });
    const { rows } = await env.pool.query<JobRow>("select * from jobs where id = $1", [handle.job_id]);
    const aborting = new AbortController();
    let openGate = () => undefined as void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const events: string[] = [];
    const ctx = {
      pool: env.pool,
      log: createLogger("silent"),
      signal: aborting.signal,
      attempt: 1,
      maxAttempts: 3,
      workerJobId: "1",
      job: rows[0],
      shopId: env.shopId,
      payload: { report: "by_offer" as const, body: reportBody.parse({}) },
      // A progress write that is slow to land (a busy database): it finishes when the test says so.
      async progress() {
        events.push("progress started");
        await gate;
        events.push("progress landed");
      },
    } as unknown as JobRunContext<{ report: "by_offer"; body: ReturnType<typeof reportBody.parse> }>;

    // The export cannot write its file while this lock is held: it stays under way until aborted.
    const locker = await env.pool.connect();
    let committed = false;
    // A failed test must not hand the pool a connection still holding the lock (destroyed instead).
    onTestFinished(() => locker.release(!committed));
    await locker.query("begin");
    await locker.query("lock table export_chunks in exclusive mode");
    const running = runReportExport(ctx).then(
      () => events.push("export completed"),
      (error: unknown) => events.push(`export failed: ${error instanceof Error ? error.message : String(error)}`),
    );
    // The first progress message (the row count) is written; then the job is aborted and its child ends.
    await vi.waitFor(() => expect(events, events.join("; ")).toContain("progress started"), { timeout: 20_000 });
    const child = forked.at(-1);
    if (!child) throw new Error("runReportExport forked no process");
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
    aborting.abort();
    await exited;
    await locker.query("commit");
    committed = true;
    // The run's own exit listener ran before ours: a run that did not wait for its progress has
    // failed by the end of this turn's microtasks.
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(["progress started"]);

    openGate();
    await running;
    expect(events).toEqual(["progress started", "progress landed", expect.stringMatching(/^export failed: the export process ended/)]);
  });
});
