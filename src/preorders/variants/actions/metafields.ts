import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { enqueueJob } from "../../../core/jobs.ts";
import { jobHandleOutput } from "../../../core/outputs.ts";
import { platformId } from "../../../core/params.ts";
import { unique } from "../../../platform/operations/chunk.ts";
import { offerId } from "../../params.ts";
import { bulkSyncMetafieldsJob, resetMetafieldsJob } from "../../sync/jobs/metafields.ts";
import { findVariant, variantParams } from "./product-variants.ts";

/**
 * The storefront metafields' repairs (decision 0196): each offer's storefront configuration is one
 * app-owned json metafield per variant (namespace $app:preorder, key offer-<offer id>), written by
 * the offer's sync. These actions answer a job handle; the job queues the offers' syncs, which do
 * the writing (each offer's `sync` shows when it is done, or why it failed).
 */

const PATH = "/preorders/product_variants";
const RESET_CAP = 5000;
const SYNC_OFFERS_CAP = 1000;

const NOTE = "The job queues the offers' syncs, which write the metafields: each offer's sync.status shows when they are done, or why not.";

export const bulkSyncMetafields = defineAction({
  name: "preorders.product_variants.bulk_sync_metafields",
  method: "POST",
  path: `${PATH}/bulk_sync_metafields`,
  description: `Writes the storefront configuration metafield of every variant of the shop's offers again, even where nothing changed since the last write (a metafield edited or deleted on the platform comes back as the offer says). offer_ids (up to ${SYNC_OFFERS_CAP}) limits it to those offers; without it, every offer. Answers a job handle; the job's result gives how many offers' syncs it queued.`,
  aliases: ["sync the preorder metafields", "rewrite the storefront metafields of preorder offers", "repair the preorder widget data on the storefront"],
  notes: [NOTE, "Offers that are not active have their metafields removed instead, as their sync always does."],
  output: jobHandleOutput,
  kind: "write",
  async: true,
  input: z.strictObject({ offer_ids: z.array(offerId).min(1).max(SYNC_OFFERS_CAP).optional() }),
  async handler(ctx, { input }) {
    const offerIds = input.offer_ids ? unique(input.offer_ids) : undefined;
    return enqueueJob(ctx.db, bulkSyncMetafieldsJob, offerIds ? { offer_ids: offerIds } : {}, { shopId: ctx.shopId });
  },
});

export const bulkResetMetafields = defineAction({
  name: "preorders.product_variants.bulk_reset_metafields",
  method: "POST",
  path: `${PATH}/bulk_reset_metafields`,
  description: `Resets the storefront metafields of up to ${RESET_CAP} variants (numbers or gids): deletes every preorder offer metafield the app wrote on them, then the syncs of their offers write the live offers' ones afresh. Answers a job handle; the job's result gives the metafields deleted and the offers' syncs queued.`,
  aliases: ["reset the preorder metafields of variants", "clear the preorder storefront data of variants"],
  notes: [NOTE, `At most ${RESET_CAP} variant ids per request; repeated ids count once.`],
  output: jobHandleOutput,
  kind: "write",
  async: true,
  input: z.strictObject({ variant_ids: z.array(platformId("ProductVariant")).min(1).max(RESET_CAP) }),
  async handler(ctx, { input }) {
    const ids = unique(input.variant_ids);
    return enqueueJob(ctx.db, resetMetafieldsJob, { variant_ids: ids }, { shopId: ctx.shopId });
  },
});

export const resetVariantMetafields = defineAction({
  name: "preorders.product_variants.reset_metafields",
  method: "POST",
  path: `${PATH}/{id}/reset_metafields`,
  description:
    "Resets one variant's storefront metafields as bulk_reset_metafields does: deletes the preorder offer metafields the app wrote on it, then its offers' syncs write the live ones afresh. 404 for a variant the shop's catalog does not have. Answers a job handle.",
  aliases: ["reset the preorder metafields of a variant", "repair the preorder widget data of one variant"],
  notes: [NOTE],
  output: jobHandleOutput,
  kind: "write",
  async: true,
  params: variantParams,
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    const variant = await findVariant(ctx, params.id);
    return enqueueJob(ctx.db, resetMetafieldsJob, { variant_ids: [variant.id] }, { shopId: ctx.shopId });
  },
});
