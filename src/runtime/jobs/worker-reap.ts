import { z } from "zod";
import { defineTask } from "../../core/tasks.ts";
import { reapDeadWorkers } from "../worker-reaper.ts";

/** Crontab: frees the jobs of workers whose heartbeat stopped (see src/runtime/worker-reaper.ts). */
export default defineTask({
  name: "worker_reap",
  payload: z.unknown(),
  // every minute: free the jobs of workers whose heartbeat stopped (not after the 4-hour lock timeout)
  cron: [{ match: "* * * * *", options: { maxAttempts: 1 } }],
  async run(ctx) {
    const reaped = await reapDeadWorkers(ctx.pool, ctx.config.WORKER_DEAD_AFTER_SECONDS);
    if (reaped.workerIds.length > 0) ctx.log.warn(reaped, "freed the jobs of dead workers");
  },
});
