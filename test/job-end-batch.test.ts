import { describe, expect, it, vi } from "vitest";
import { writeFinishedRun } from "../src/core/job-end-batch.ts";
import { type JobRow, declareJobTask, enqueueJobRow } from "../src/core/jobs.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ app: false, shop: true });
const task = declareJobTask({ name: "test.end_batch" });

async function rows(ids: readonly string[]): Promise<Pick<JobRow, "id" | "status" | "attempts" | "result" | "errors">[]> {
  const { rows: found } = await env.pool.query<Pick<JobRow, "id" | "status" | "attempts" | "result" | "errors">>(
    "select id, status, attempts, result, errors from jobs where id = any($1::uuid[]) order by array_position($1::uuid[], id)",
    [ids],
  );
  return found;
}

describe("the ends of runs finishing together", () => {
  it("are written by fewer statements than runs, each row with its own status and result", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await enqueueJobRow(env.pool, { shopId: env.shopId, task, payload: { i } })).job_id);
    const query = vi.spyOn(env.pool, "query");
    try {
      await Promise.all(
        ids.map((jobId, i) =>
          writeFinishedRun(env.pool, {
            jobId,
            attempt: 1,
            startedAt: new Date(),
            status: i === 3 ? "failed" : "completed",
            errors: JSON.stringify(i === 3 ? [{ attempt: 1, message: "All 1 item(s) refused" }] : []),
            result: JSON.stringify({ i }),
          }),
        ),
      );
      const statements = query.mock.calls.filter(([config]) => typeof config === "object" && (config as { name?: string }).name === "job_run_end_batch");
      expect(statements.length).toBeGreaterThanOrEqual(1);
      expect(statements.length).toBeLessThan(ids.length);
    } finally {
      query.mockRestore();
    }
    const written = await rows(ids);
    expect(written.map((r) => [r.status, r.attempts, r.result])).toEqual(ids.map((_, i) => [i === 3 ? "failed" : "completed", 1, { i }]));
    expect(written[3]?.errors).toEqual([{ attempt: 1, message: "All 1 item(s) refused" }]);
  });

  it("leaves a cancelled job cancelled, and fails only the run whose row the statement refuses", async () => {
    const { job_id: cancelled } = await enqueueJobRow(env.pool, { shopId: env.shopId, task });
    await env.pool.query("update jobs set status = 'cancelled' where id = $1", [cancelled]);
    await writeFinishedRun(env.pool, { jobId: cancelled, attempt: 1, startedAt: new Date(), status: "completed", errors: "[]", result: "{}" });
    expect((await rows([cancelled]))[0]?.status).toBe("cancelled");

    const { job_id: a } = await enqueueJobRow(env.pool, { shopId: env.shopId, task });
    const { job_id: b } = await enqueueJobRow(env.pool, { shopId: env.shopId, task });
    const outcomes = await Promise.allSettled([
      writeFinishedRun(env.pool, { jobId: a, attempt: 1, startedAt: new Date(), status: "completed", errors: "[]", result: "{}" }),
      writeFinishedRun(env.pool, { jobId: b, attempt: 1, startedAt: new Date(), status: "completed", errors: "not json", result: "{}" }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected"]);
    expect((await rows([a, b])).map((r) => r.status)).toEqual(["completed", "queued"]);
  });
});
