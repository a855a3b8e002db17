import type { Task } from "graphile-worker";
import { z } from "zod";
import { connectedShops, enqueueCatalogSync } from "../src/catalog/schedule.ts";
import type { ServiceTaskDeps } from "./deps.ts";

const payload = z.object({ mode: z.enum(["full", "incremental"]) }).partial();

/** Crontab: queues a sync for every connected shop (coalesced per shop). */
export default function catalogSyncSchedule(deps: ServiceTaskDeps): Task {
  return async (raw) => {
    const mode = payload.parse(raw ?? {}).mode ?? "incremental";
    let queued = 0;
    for (const shopId of await connectedShops(deps.pool)) {
      if (await enqueueCatalogSync(deps.pool, shopId, mode)) queued += 1;
    }
    deps.log.info({ mode, queued }, "catalog syncs scheduled");
  };
}
