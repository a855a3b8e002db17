import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { enqueueJob } from "../../../core/jobs.ts";
import { jobHandleOutput } from "../../../core/outputs.ts";
import { variantIdSchema } from "../model.ts";
import { bulkNotifyJob } from "../jobs/bulk-notify.ts";

const BULK_NOTIFY_MAX = 1000;

export const bulkNotifySignups = defineAction({
  name: "back_in_stock.signups.bulk_notify",
  aliases: ["alert every waiting customer of a variant now", "send back in stock alerts to many signups"],
  notes: [
    "Each signup's initial alert is delivered at most once, ever: a repeated bulk_notify sends nothing to those already alerted or whose alert is still being sent.",
    "Signups whose alert failed (status failed) are sent again, with the same message id: by ids, or with variant_id (every waiting and failed signup of the variant); the job's result counts them as resent.",
  ],
  output: jobHandleOutput,
  method: "POST",
  path: "/back_in_stock/signups/bulk_notify",
  description: `Sends the back-in-stock alert (stage initial) now, on demand, in a background job, to either ids (signup ids, 1-${BULK_NOTIFY_MAX}) or every waiting or failed signup of variant_id (numeric id or gid), oldest first; one of the two. No batching and no stock check: the merchant's call. The ledger holds: a signup that already had its initial alert is skipped (already_notified); one that may not be sent to (unsubscribed, channel off, stage off, consent missing) is refused and logged as blocked. Answers a job handle; the job's result counts requested, not_found, already_notified, resent (failed alerts sent again), blocked, sent, failed and retrying (retryable failures still being retried: their outcome lands in the notifications log).`,
  kind: "write",
  async: true,
  input: z
    .strictObject({
      ids: z.array(z.string().min(1).max(100)).min(1).max(BULK_NOTIFY_MAX).optional(),
      variant_id: variantIdSchema.optional(),
    })
    .superRefine((body, ctx) => {
      if (body.ids === undefined && body.variant_id === undefined) ctx.addIssue({ code: "custom", path: ["ids"], message: "is required (or variant_id)" });
      if (body.ids !== undefined && body.variant_id !== undefined) ctx.addIssue({ code: "custom", path: ["variant_id"], message: "is not allowed with ids" });
    }),
  async handler(ctx, { input }) {
    const ids = input.ids ? [...new Set(input.ids)] : undefined;
    return enqueueJob(ctx.db, bulkNotifyJob, ids ? { ids } : { variant_id: input.variant_id }, { shopId: ctx.shopId, total: ids?.length ?? null, maxAttempts: 3 });
  },
});
