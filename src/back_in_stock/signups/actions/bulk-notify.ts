import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import type { JobContext } from "../../../core/job-task.ts";
import { enqueueJob } from "../../../core/jobs.ts";
import { jobHandleOutput } from "../../../core/outputs.ts";
import type { Channel } from "../../templates/default-templates.ts";
import { variantIdSchema } from "../model.ts";
import { isUuid } from "../../../core/params.ts";
import { loadBackInStockSettings } from "../../settings/settings-store.ts";
import { type AlertDeps, bulkNotifyTask } from "../../alerts/deps.ts";
import { addSummary, emptySummary, sendLimit } from "../../../messaging/ledger/send.ts";
import { SendContexts, blockedReason, claimStage, logRefusal, reclaimFailed, sendLedgerRows } from "../../alerts/ledger.ts";
import { stageSwitches } from "../../templates/render.ts";
import { CHUNK_SIZE } from "../../alerts/runs.ts";

export const BULK_NOTIFY_MAX = 1000;

const payload = z.object({ ids: z.array(z.string()).optional(), variant_id: z.string().optional() });

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
    return enqueueJob(ctx.db, {
      shopId: ctx.shopId,
      task: bulkNotifyTask,
      payload: ids ? { ids } : { variant_id: input.variant_id },
      total: ids?.length ?? null,
      maxAttempts: 3,
    });
  },
});

interface Candidate {
  id: string;
  created_at: Date;
  variant_id: string;
  channel: Channel;
  status: string;
  consent: boolean;
}

/** The job: refusals logged, the rest claimed and sent CHUNK_SIZE at a time. */
export async function runBulkNotify(ctx: JobContext & AlertDeps): Promise<unknown> {
  const { ids, variant_id: variantId } = payload.parse(ctx.job.payload);
  const shopId = ctx.job.shop_id;
  if (!shopId) throw new Error(`${bulkNotifyTask.name} job without a shop`);
  const [settings, switches] = await Promise.all([loadBackInStockSettings(ctx.pool, shopId), stageSwitches(ctx.pool, shopId)]);
  const contexts = new SendContexts(ctx);
  const limit = sendLimit(ctx);
  const counts = { requested: 0, not_found: 0, already_notified: 0, resent: 0, blocked: 0 };
  const sent = emptySummary();
  let processed = 0;

  const handle = async (page: Candidate[]) => {
    const eligible: string[] = [];
    for (const signup of page) {
      const reason = blockedReason(signup, "initial", settings, switches);
      if (reason) {
        counts.blocked += 1;
        await logRefusal(ctx.pool, { shopId, signupId: signup.id, variantId: signup.variant_id, stage: "initial", channel: signup.channel, reason });
      } else eligible.push(signup.id);
    }
    const failed = new Set(page.filter((s) => s.status === "failed").map((s) => s.id));
    const resent = await reclaimFailed(ctx.pool, shopId, eligible.filter((id) => failed.has(id)), "initial");
    const claimed = await claimStage(ctx.pool, shopId, eligible.filter((id) => !failed.has(id)), "initial");
    counts.resent += resent.length;
    counts.already_notified += eligible.length - claimed.length - resent.length;
    addSummary(sent, await sendLedgerRows(ctx, [...resent, ...claimed].map((c) => c.id), { mode: "job" }, { contexts, limit }));
    processed += page.length;
    await ctx.progress(processed);
  };

  if (ids) {
    counts.requested = ids.length;
    const valid = ids.filter(isUuid);
    for (let i = 0; i < valid.length; i += CHUNK_SIZE) {
      const { rows } = await ctx.pool.query<Candidate>(
        `select id, created_at, variant_id, channel, status, consent from bis_signups
         where shop_id = $1 and id = any($2::uuid[]) order by created_at, id`,
        [shopId, valid.slice(i, i + CHUNK_SIZE)],
      );
      counts.not_found += Math.min(CHUNK_SIZE, valid.length - i) - rows.length;
      await handle(rows);
    }
    counts.not_found += ids.length - valid.length;
  } else if (variantId) {
    const { rows: total } = await ctx.pool.query<{ n: number }>("select count(*)::int as n from bis_signups where shop_id = $1 and variant_id = $2 and status in ('waiting', 'failed')", [
      shopId,
      variantId,
    ]);
    await ctx.progress(0, total[0]?.n ?? 0);
    let after: Candidate | undefined;
    for (;;) {
      const { rows } = await ctx.pool.query<Candidate>(
        `select id, created_at, variant_id, channel, status, consent from bis_signups
         where shop_id = $1 and variant_id = $2 and status in ('waiting', 'failed')
           and ($3::timestamptz is null or (created_at, id) > ($3, $4::uuid))
         order by created_at, id limit $5`,
        [shopId, variantId, after?.created_at ?? null, after?.id ?? null, CHUNK_SIZE],
      );
      if (rows.length === 0) break;
      counts.requested += rows.length;
      await handle(rows);
      after = rows.at(-1);
    }
  }
  return { ...counts, sent: sent.sent, failed: sent.failed, retrying: sent.retrying, blocked: counts.blocked + sent.blocked };
}
