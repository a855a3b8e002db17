import type { Task, TaskList } from "graphile-worker";
import { OFFER_RESOLVE_KIND, OFFER_SYNC_TASK } from "../../src/preorders/sync/enqueue.ts";
import { runOfferResolution } from "../../src/preorders/sync/resolve.ts";
import { offerSyncPayload, syncOffer } from "../../src/preorders/sync/run.ts";
import { jobTask } from "../../src/core/job-task.ts";
import type { ServiceTaskDeps } from "../deps.ts";

/** graphile-worker task `preorders_offer_sync`: one offer to the platform (a throw is retried with backoff). */
function offerSync(deps: ServiceTaskDeps): Task {
  return async (rawPayload, helpers) => {
    const parsed = offerSyncPayload.safeParse(rawPayload);
    if (!parsed.success) {
      helpers.logger.error(`Discarding job ${helpers.job.id}: payload is not { shop_id, offer_id }`);
      return;
    }
    const { shop_id: shopId, offer_id: offerId } = parsed.data;
    const outcome = await syncOffer({ pool: deps.pool, platform: deps.platform, log: deps.log }, shopId, offerId, helpers.abortSignal);
    deps.log.debug({ shopId, offerId, attempt: helpers.job.attempts, ...outcome }, "offer sync");
  };
}

/** Tasks of preorder offers: their sync to the platform, and the resolution of their variants from the catalog. */
export function preorderOfferTasks(deps: ServiceTaskDeps): TaskList {
  return {
    [OFFER_SYNC_TASK]: offerSync(deps),
    [OFFER_RESOLVE_KIND]: jobTask(deps, runOfferResolution),
  };
}
