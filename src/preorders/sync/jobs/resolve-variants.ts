import { withTransaction } from "../../../core/db.ts";
import { type JobRunContext, defineJob } from "../../../core/job-task.ts";
import { offerResolveJob } from "../enqueue.ts";
import { type ResolutionResult, resolveOfferVariants } from "../resolve.ts";

/** The job `preorders_offer_resolve_variants`. */
async function runOfferResolution(ctx: JobRunContext<{ offer_id: string }>): Promise<ResolutionResult> {
  const { shopId, payload: { offer_id: offerId } } = ctx;
  // GET /jobs/{id} shows the variants considered as the total while it runs; every one of them is
  // resolved (in or out) once it commits.
  const result = await withTransaction(ctx.pool, (db) => resolveOfferVariants(db, shopId, offerId, ctx.job.id, (considered) => ctx.progress(0, considered)));
  await ctx.progress(result.considered, result.considered);
  return result;
}

export const offerResolveJobRun = defineJob({ ...offerResolveJob, run: runOfferResolution });
