import { upsertLevelsOpeningRestocks } from "../../back_in_stock/alerts/mirrored-restocks.ts";
import { defineJob } from "../../core/job-task.ts";
import { enqueueAutoApplyResolutions } from "../../preorders/sync/resolve.ts";
import { catalogSyncJob } from "../schedule.ts";
import { syncCatalog } from "../sync.ts";

/** Application job `catalog_sync`: mirrors one shop's catalog (full or incremental). */
export const catalogSyncJobRun = defineJob({
  ...catalogSyncJob,
  async run(ctx) {
    const { shopId, payload: { mode } } = ctx;
    const client = await ctx.platform.clientFor(ctx.pool, shopId);
    const result = await syncCatalog({
      pool: ctx.pool,
      client,
      shopId,
      mode,
      log: ctx.log,
      progress: (n, total) => ctx.progress(n, total),
      signal: ctx.signal,
      // A restock the sync mirrors before its webhook arrives opens its runs here (the webhook then sees no rise).
      writeLevels: (shop, seenAt, rows) => upsertLevelsOpeningRestocks(ctx.pool, ctx.log, shop, seenAt, rows),
    });
    // Offers applying to the whole catalog (or a collection) with auto_apply_to_new_variants pick up what the sync brought.
    await enqueueAutoApplyResolutions(ctx.pool, shopId);
    return result;
  },
});
