import { z } from "zod";
import { connectedShops, enqueueCatalogSync } from "../schedule.ts";
import { defineTask } from "../../core/tasks.ts";

/** Crontab: queues a sync for every connected shop (coalesced per shop). */
export default defineTask({
  name: "catalog_sync_schedule",
  payload: z.object({ mode: z.enum(["full", "incremental"]) }).partial().nullish(),
  cron: [
    // every 10 minutes: what changed in each connected shop's catalog
    { match: "*/10 * * * *", identifier: "catalog_incremental", options: { maxAttempts: 1 }, payload: { mode: "incremental" } },
    // nightly: a full pass, which also removes what the platform deleted
    { match: "30 3 * * *", identifier: "catalog_full", options: { maxAttempts: 1 }, payload: { mode: "full" } },
  ],
  async run(ctx, payload) {
    const mode = payload?.mode ?? "incremental";
    let queued = 0;
    for (const shopId of await connectedShops(ctx.pool)) {
      if (await enqueueCatalogSync(ctx.pool, shopId, mode)) queued += 1;
    }
    ctx.log.info({ mode, queued }, "catalog syncs scheduled");
  },
});
