import { z } from "zod";
import { withTransaction } from "../../../core/db.ts";
import { type JobRunContext, defineJob } from "../../../core/job-task.ts";
import { declareJob } from "../../../core/jobs.ts";
import { refreshVariantCounts } from "../../orders/counts.ts";

/** Recomputes the preorder counts of many variants (bulk_recalculate_preorder_counts). */
export const recalculateCountsJob = declareJob({ name: "preorders_recalculate_preorder_counts", payload: z.object({ variant_ids: z.array(z.string()) }) });

/** The recalculation job: one INSERT ... SELECT ... ON CONFLICT over every variant of the request. */
async function runRecalculateCounts(ctx: JobRunContext<{ variant_ids: string[] }>): Promise<Record<string, unknown>> {
  const { shopId, payload: { variant_ids: ids } } = ctx;
  const written = await withTransaction(ctx.pool, (db) => refreshVariantCounts(db, shopId, ids));
  return { variants: written };
}

export const recalculateCountsJobRun = defineJob({ ...recalculateCountsJob, run: runRecalculateCounts });
