import { z } from "zod";
import { jobHandleOutput } from "../../../core/outputs.ts";
import { defineAction } from "../../../core/action.ts";
import { withTransaction } from "../../../core/db.ts";
import type { JobContext } from "../../../core/job-task.ts";
import { declareJobTask, enqueueJob } from "../../../core/jobs.ts";
import { platformId } from "../../../core/params.ts";
import { unique } from "../../../platform/operations/chunk.ts";
import { refreshVariantCounts } from "../../orders/counts.ts";

export const recalculateCountsTask = declareJobTask({ name: "preorders_recalculate_preorder_counts" });
export const RECALCULATE_CAP = 5000;

export const bulkRecalculatePreorderCounts = defineAction({
  name: "preorders.product_variants.bulk_recalculate_preorder_counts",
  method: "POST",
  path: "/preorders/product_variants/bulk_recalculate_preorder_counts",
  description: `Recomputes preorder_count (units on preorder lines of orders neither cancelled nor refunded) for up to ${RECALCULATE_CAP} variants (numbers or gids) in one job, one set-based statement. Answers a job handle; the job's result gives how many variants were written.`,
  aliases: ["recalculate preorder counts for many variants", "bulk recount preorders of variants"],
  notes: ["At most 5000 variant ids per request; repeated ids count once.", "A variant without live preorders is written with 0."],
  output: jobHandleOutput,
  kind: "write",
  async: true,
  input: z.strictObject({ variant_ids: z.array(platformId("ProductVariant")).min(1).max(RECALCULATE_CAP) }),
  async handler(ctx, { input }) {
    const ids = unique(input.variant_ids);
    return enqueueJob(ctx.db, { shopId: ctx.shopId, task: recalculateCountsTask, payload: { variant_ids: ids }, total: ids.length });
  },
});

/** The recalculation job: one INSERT ... SELECT ... ON CONFLICT over every variant of the request. */
export async function runRecalculateCounts(ctx: JobContext): Promise<Record<string, unknown>> {
  const { variant_ids: ids } = z.object({ variant_ids: z.array(z.string()) }).parse(ctx.job.payload);
  const shopId = ctx.job.shop_id;
  if (!shopId) throw new Error("recalculate job without a shop");
  const written = await withTransaction(ctx.pool, (db) => refreshVariantCounts(db, shopId, ids));
  return { variants: written };
}
