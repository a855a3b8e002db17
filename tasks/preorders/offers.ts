import { offerResolveTask, offerSyncTask } from "../../src/preorders/sync/enqueue.ts";
import { runOfferResolution } from "../../src/preorders/sync/resolve.ts";
import { syncOffer } from "../../src/preorders/sync/run.ts";
import { defineJobTask } from "../../src/core/job-task.ts";
import { type AnyTaskDefinition, defineTask } from "../../src/core/tasks.ts";

/** graphile-worker task `preorders_offer_sync`: one offer to the platform (a throw is retried with backoff). */
const offerSync = defineTask({
  ...offerSyncTask,
  async run(ctx, { shop_id: shopId, offer_id: offerId }) {
    const outcome = await syncOffer(ctx, shopId, offerId, ctx.signal);
    ctx.log.debug({ shopId, offerId, attempt: ctx.attempt, ...outcome }, "offer sync");
  },
});

/** Tasks of preorder offers: their sync to the platform, and the resolution of their variants from the catalog. */
export const preorderOfferTasks: readonly AnyTaskDefinition[] = [offerSync, defineJobTask({ name: offerResolveTask.name, run: runOfferResolution })];
