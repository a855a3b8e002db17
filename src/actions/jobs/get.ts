import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { notFound } from "../../core/errors.ts";
import { type JobRow, presentJob } from "../../core/jobs.ts";
import { isUuid } from "../../core/params.ts";

export const getJob = defineAction({
  name: "jobs.get",
  method: "GET",
  path: "/jobs/{job_id}",
  description:
    "Status of an asynchronous job: queued, running, completed, failed or cancelled (the last three are terminal), with total, processed, result (an export's names its download path) and errors.",
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
