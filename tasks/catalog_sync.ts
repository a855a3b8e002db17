import { z } from "zod";
import { enqueueAutoApplyResolutions } from "../src/preorders/sync/resolve.ts";
import { catalogSyncTask } from "../src/catalog/schedule.ts";
import { syncCatalog } from "../src/catalog/sync.ts";
import { defineJobTask } from "../src/core/job-task.ts";

const payload = z.object({ mode: z.enum(["full", "incremental"]) });

/** Application job `catalog_sync`: mirrors one shop's catalog (full or incremental). */
export default defineJobTask({
  name: catalogSyncTask.name,
  async run(ctx) {
    const { mode } = payload.parse(ctx.job.payload);
    const shopId = ctx.job.shop_id;
    if (!shopId) throw new Error("catalog_sync job without a shop");
    const client = await ctx.platform.clientFor(ctx.pool, shopId);
    const result = await syncCatalog({ pool: ctx.pool, client, shopId, mode, log: ctx.log, progress: (n) => ctx.progress(n), signal: ctx.signal });
    // Offers applying to the whole catalog (or a collection) with auto_apply_to_new_variants pick up what the sync brought.
    await enqueueAutoApplyResolutions(ctx.pool, shopId);
    return result;
  },
});
