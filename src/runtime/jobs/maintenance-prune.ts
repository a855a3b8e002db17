import { z } from "zod";
import { defineTask } from "../../core/tasks.ts";
import { pruneJobHistory } from "../../ops/attempts.ts";
import { pruneLoginFailures } from "../../ops/login-limit.ts";
import { pruneRevokedSessions } from "../../ops/sessions.ts";
import { collectQueueGarbage } from "../../queue/maintenance.ts";
import { pruneClientRateLimitWindows, pruneFinishedJobs, pruneRateLimitWindows } from "../maintenance.ts";

/**
 * Crontab: removes finished jobs (and the console's job attempts and history) past their retention, spent rate-limit windows (the API keys' and
 * the key-less clients', decision 0215) and ended login-failure windows, the revocations of
 * sessions that have expired, and the job queues no job uses (src/queue/maintenance.ts).
 */
export default defineTask({
  name: "maintenance_prune",
  payload: z.unknown(),
  // every 15 minutes: jobs past retention, spent rate-limit windows
  cron: [{ match: "*/15 * * * *", options: { maxAttempts: 1 } }],
  async run(ctx) {
    const jobs = await pruneFinishedJobs(ctx.pool, ctx.config.JOB_RETENTION_DAYS);
    // The console's job attempts and finished-jobs history (sql/140), kept as long as the jobs.
    const history = await pruneJobHistory(ctx.pool, ctx.config.JOB_RETENTION_DAYS);
    const windows = await pruneRateLimitWindows(ctx.pool, ctx.config.RATE_LIMIT_WINDOW_SECONDS);
    const clientWindows = await pruneClientRateLimitWindows(ctx.pool);
    const loginWindows = await pruneLoginFailures(ctx.pool);
    const revokedSessions = await pruneRevokedSessions(ctx.pool);
    const queue = await collectQueueGarbage(ctx.pool);
    ctx.log.info(
      { jobs, history, windows, clientWindows, loginWindows, revokedSessions, queue },
      "pruned finished jobs, rate-limit windows, login-failure windows, expired session revocations and unused job queues",
    );
  },
});
