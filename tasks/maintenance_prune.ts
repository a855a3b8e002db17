import { z } from "zod";
import { defineTask } from "../src/core/tasks.ts";
import { pruneFinishedJobs, pruneRateLimitWindows } from "../src/runtime/maintenance.ts";

/** Crontab: removes finished jobs past their retention and spent rate-limit windows. */
export default defineTask({
  name: "maintenance_prune",
  payload: z.unknown(),
  async run(ctx) {
    const jobs = await pruneFinishedJobs(ctx.pool, ctx.config.JOB_RETENTION_DAYS);
    const windows = await pruneRateLimitWindows(ctx.pool, ctx.config.RATE_LIMIT_WINDOW_SECONDS);
    ctx.log.info({ jobs, windows }, "pruned finished jobs and rate-limit windows");
  },
});
