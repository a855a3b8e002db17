import { z } from "zod";
import { connectedShops, enqueueCatalogSync } from "../src/catalog/schedule.ts";
import { defineTask } from "../src/core/tasks.ts";

/** Crontab: queues a sync for every connected shop (coalesced per shop). */
export default defineTask({
  name: "catalog_sync_schedule",
  payload: z.object({ mode: z.enum(["full", "incremental"]) }).partial().nullish(),
  async run(ctx, payload) {
    const mode = payload?.mode ?? "incremental";
    let queued = 0;
    for (const shopId of await connectedShops(ctx.pool)) {
      if (await enqueueCatalogSync(ctx.pool, shopId, mode)) queued += 1;
    }
    ctx.log.info({ mode, queued }, "catalog syncs scheduled");
  },
});
