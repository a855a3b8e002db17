import { describe, expect, it } from "vitest";
import { refusalOf } from "../src/core/jobs.ts";
import { api } from "./helpers/app.ts";
import { cliOutput } from "./helpers/cli.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

const TOKEN = "ops-refused-jobs-test-token-9e04";
const env = useTestEnv({ config: { OPERATOR_TOKEN: TOKEN }, worker: true });

const cli = (...args: string[]) => cliOutput(env.db.url, args);

describe("a refused action never shows as completed", () => {
  it("a bulk cancel whose every order is refused ends failed with the reason, in the job, the console and jobs list", async () => {
    const missing = "00000000-0000-0000-0000-00000000abcd";
    const answer = await api(env.app, "POST", "/preorders/orders/bulk_cancel", { key: env.key, body: { order_ids: [missing] } });
    expect(answer.status).toBe(202);
    const jobId = (answer.body as { job_id: string }).job_id;
    const row = await waitFor("the bulk cancel job to finish", async () => {
      const { rows } = await env.pool.query<{ status: string; errors: { message: string }[] }>("select status, errors from jobs where id = $1", [jobId]);
      const job = rows[0];
      return job && job.status !== "queued" && job.status !== "running" ? job : undefined;
    });
    expect(row.status).toBe("failed");
    expect(row.errors.at(-1)?.message).toContain(`Preorder order not found: ${missing}`);

    const login = await fetch(`${env.app.origin}/ops/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: TOKEN }).toString(),
      redirect: "manual",
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const page = await (await fetch(`${env.app.origin}/ops/jobs/app/${jobId}`, { headers: { cookie } })).text();
    expect(page).toContain('<strong id="job-status">failed</strong>');
    expect(page).toContain("All 1 item(s) refused: Preorder order not found");

    const listed = JSON.parse(await cli("jobs", "list", "--source", "all", "--json")) as { source: string; id: string; status: string; last_error: string | null }[];
    expect(listed.find((j) => j.source === "app" && j.id === jobId)).toMatchObject({ status: "failed", last_error: expect.stringContaining("refused") as unknown });
  });

  it("a bulk result with some items done still completes; an explicit refusal does not", () => {
    expect(refusalOf({ counts: { cancelled: 1, refused: 2 }, outcomes: [] })).toBeUndefined();
    expect(refusalOf({ counts: { refused: 2 }, outcomes: [{ reason: "x" }, { reason: "x" }] })).toBe("All 2 item(s) refused: x");
    expect(refusalOf({ status: "blocked", reason: "opted out" })).toBe("Refused: opted out");
    expect(refusalOf({ counts: {} })).toBeUndefined();
    expect(refusalOf(null)).toBeUndefined();
  });
});
