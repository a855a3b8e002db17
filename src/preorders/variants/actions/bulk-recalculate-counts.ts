import { z } from "zod";
import { jobHandleOutput } from "../../../core/outputs.ts";
import { defineAction } from "../../../core/action.ts";
import { enqueueJob } from "../../../core/jobs.ts";
import { recalculateCountsJob } from "../jobs/recalculate-counts.ts";
import { platformId } from "../../../core/params.ts";
import { unique } from "../../../platform/operations/chunk.ts";

const RECALCULATE_CAP = 5000;

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
    return enqueueJob(ctx.db, recalculateCountsJob, { variant_ids: ids }, { shopId: ctx.shopId, total: ids.length });
  },
});

