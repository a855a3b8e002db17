import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { notFound } from "../../core/errors.ts";
import { type JobRow, presentJob } from "../../core/jobs.ts";
import { timestampOutput } from "../../core/outputs.ts";
import { isUuid } from "../../core/params.ts";

const jobOutput = z.strictObject({
  id: z.uuid(),
  kind: z.string().describe("what the job does (its task), such as bis_report_export"),
  status: z.enum(["queued", "running", "completed", "failed", "cancelled"]).describe("completed, failed and cancelled are terminal"),
  progress: z.int().min(0).max(100).describe("how far the job is, 0 to 100: 100 once completed; processed over total before (at most 99); 0 while the total is unknown"),
  ready: z.boolean().describe("true once the job has completed and its result can be used (an export's file downloaded)"),
  total: z.int().min(0).nullable().describe("units of work when known (rows, variants, ids), else null"),
  processed: z.int().min(0).describe("units done so far; equals total once completed"),
  result: z.unknown().describe("the job's outcome once completed (its shape depends on the action: counts, per-item outcomes, an export's download_path); null before"),
  errors: z
    .array(z.strictObject({ attempt: z.int().min(0), message: z.string(), at: timestampOutput }))
    .describe("one entry per failed attempt; a job waiting for its retry reads queued with its error here"),
  created_at: timestampOutput,
  started_at: timestampOutput.nullable(),
  finished_at: timestampOutput.nullable(),
});

export const getJob = defineAction({
  name: "jobs.get",
  method: "GET",
  path: "/jobs/{job_id}",
  description:
    "Status of an asynchronous job: queued, running, completed, failed or cancelled (the last three are terminal), with progress (0 to 100), ready (completed: its result can be used), total, processed, result (an export's names its download path) and errors.",
  notes: [
    "Poll with a growing delay until the status is terminal; each poll costs 1 rate-limit point.",
    "A failed attempt is retried with exponential backoff, 5 attempts unless the action says otherwise.",
    "Finished jobs are removed after the retention period (30 days by default): then, like another shop's job or a malformed id, 404 Job not found: <id>.",
  ],
  aliases: ["check the status of a job", "poll a background job", "get the result of an export job"],
  output: jobOutput,
  kind: "read",
  params: z.object({ job_id: z.string() }),
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    // A malformed id is simply not a job of this shop: 404 like any other unknown id.
    const { rows } = isUuid(params.job_id)
      ? await ctx.db.query<JobRow>("select * from jobs where id = $1 and shop_id = $2", [params.job_id, ctx.shopId])
      : { rows: [] };
    const job = rows[0];
    if (!job) throw notFound("Job", params.job_id);
    return presentJob(job);
  },
});
