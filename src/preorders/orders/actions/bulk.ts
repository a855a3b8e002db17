import { z } from "zod";
import { jobHandleOutput } from "../../../core/outputs.ts";
import { defineAction } from "../../../core/action.ts";
import { enqueueJob } from "../../../core/jobs.ts";
import { unique } from "../../../platform/operations/chunk.ts";
import { BULK_ORDER_CAP } from "../model.ts";
import { bulkCancelJob, bulkReleaseJob, bulkSetTagsJob } from "../jobs/bulk.ts";
import { sendPaymentCollectionUrlJob } from "../jobs/payment-collection.ts";

const orderIds = z.array(z.string().min(1).max(100)).min(1).max(BULK_ORDER_CAP);
export const tagList = z.array(z.string().trim().min(1).max(255)).max(250);

export const bulkRelease = defineAction({
  name: "preorders.orders.bulk_release",
  method: "POST",
  path: "/preorders/orders/bulk_release",
  description: `Releases up to ${BULK_ORDER_CAP} preorder orders in one job (a job handle; each submission is a new job), as /preorders/orders/{id}/release does one: an order whose offers hold fulfillment gets its platform fulfillment holds released by its own job. The job's result has one outcome per order id: released, skipped (already released or fulfilled) or refused (not found, cancelled, refunded, or an unpaid balance without force: true), with the reason.`,
  aliases: ["release many preorder orders at once", "bulk release preorder orders"],
  notes: ["At most 1000 order ids; repeated ids count once.", "Each submission is a new job: not idempotent, but releasing twice skips the orders already released."],
  output: jobHandleOutput,
  kind: "write",
  async: true,
  input: z.strictObject({ order_ids: orderIds, force: z.boolean().default(false) }),
  async handler(ctx, { input }) {
    const ids = unique(input.order_ids);
    return enqueueJob(ctx.db, bulkReleaseJob, { order_ids: ids, force: input.force }, { shopId: ctx.shopId, total: ids.length });
  },
});

export const bulkCancel = defineAction({
  name: "preorders.orders.bulk_cancel",
  method: "POST",
  path: "/preorders/orders/bulk_cancel",
  description: `Cancels up to ${BULK_ORDER_CAP} preorder orders in the app in one job (as /preorders/orders/{id}/cancel does one). The job's result has one outcome per order id: cancelled, skipped (already cancelled) or refused (not found, or already fulfilled), with the reason.`,
  aliases: ["cancel many preorder orders at once", "bulk cancel preorder orders"],
  notes: ["At most 1000 order ids; repeated ids count once.", "The platform orders are not cancelled: cancel them on the platform too."],
  output: jobHandleOutput,
  kind: "write",
  async: true,
  input: z.strictObject({ order_ids: orderIds }),
  async handler(ctx, { input }) {
    const ids = unique(input.order_ids);
    return enqueueJob(ctx.db, bulkCancelJob, { order_ids: ids }, { shopId: ctx.shopId, total: ids.length });
  },
});

export const bulkSetTags = defineAction({
  name: "preorders.orders.bulk_set_tags",
  method: "POST",
  path: "/preorders/orders/bulk_set_tags",
  description: `Adds and/or removes tags on up to ${BULK_ORDER_CAP} preorder orders on the platform (tagsAdd / tagsRemove: other tags stay), in one job. add and remove: arrays of at most 250 tags, at least one of them non-empty. The job's result has one outcome per order id: tagged, skipped (its tags already are as asked) or refused (not found, or the platform refused it), with the reason.`,
  aliases: ["tag many preorder orders at once", "bulk add or remove tags on preorder orders"],
  notes: ["At most 1000 order ids; add and remove take at most 250 tags each.", "Tags set by the merchant or other apps stay: only the given tags are added or removed."],
  output: jobHandleOutput,
  kind: "write",
  async: true,
  input: z
    .strictObject({ order_ids: orderIds, add: tagList.default([]), remove: tagList.default([]) })
    .refine((v) => v.add.length > 0 || v.remove.length > 0, { message: "is required unless remove is given", path: ["add"] }),
  async handler(ctx, { input }) {
    const ids = unique(input.order_ids);
    return enqueueJob(ctx.db, bulkSetTagsJob, { order_ids: ids, add: unique(input.add), remove: unique(input.remove) }, { shopId: ctx.shopId, total: ids.length });
  },
});

export const bulkSendPaymentCollectionUrl = defineAction({
  name: "preorders.orders.bulk_send_payment_collection_url",
  method: "POST",
  path: "/preorders/orders/bulk_send_payment_collection_url",
  description: `Sends the customers of up to ${BULK_ORDER_CAP} preorder orders the platform's link to pay their remaining balance (the order's payment collection URL), in one job (a job handle). Each order gets a payment_request notification on the channels that are on (its template is under /preorders/templates/payment_request, with {{ balance.payment_url }}). The job's result has one outcome per order id: sent (with its channels), skipped (nothing owed) or refused (not found, cancelled, refunded, or no channel reaches the customer), with the reason.`,
  aliases: ["send the balance payment link to preorder customers", "bulk send payment collection url", "request the remaining balance"],
  notes: [
    "At most 1000 order ids; repeated ids count once.",
    "Each submission is a new request and sends the link again; a retried job does not send twice.",
    "The payment_request stage can be switched off like the other stages; its messages are then logged as blocked.",
  ],
  output: jobHandleOutput,
  kind: "write",
  async: true,
  input: z.strictObject({ order_ids: orderIds }),
  async handler(ctx, { input }) {
    const ids = unique(input.order_ids);
    return enqueueJob(ctx.db, sendPaymentCollectionUrlJob, { order_ids: ids }, { shopId: ctx.shopId, total: ids.length });
  },
});
