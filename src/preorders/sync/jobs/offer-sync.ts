import { offerSyncTask } from "../enqueue.ts";
import { offerResolveJobRun } from "./resolve-variants.ts";
import { syncOffer } from "../run.ts";
import { type AnyTaskDefinition, defineTask } from "../../../core/tasks.ts";

/** graphile-worker task `preorders_offer_sync`: one offer to the platform (a throw is retried with backoff). */
const offerSync = defineTask({
  ...offerSyncTask,
  async run(ctx, { shop_id: shopId, offer_id: offerId }) {
    const outcome = await syncOffer(ctx, shopId, offerId, ctx.signal);
    ctx.log.debug({ shopId, offerId, attempt: ctx.attempt, ...outcome }, "offer sync");
  },
});

/** Tasks of preorder offers: their sync to the platform, and the resolution of their variants from the catalog. */
export const preorderOfferTasks: readonly AnyTaskDefinition[] = [offerSync, offerResolveJobRun];
