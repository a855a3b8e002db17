import { z } from "zod";
import { type JobRunContext, defineJob } from "../../../core/job-task.ts";
import { declareJob } from "../../../core/jobs.ts";
import type { Channel } from "../../templates/default-templates.ts";
import { isUuid } from "../../../core/params.ts";
import { loadBackInStockSettings } from "../../settings/settings.ts";
import type { AlertDeps } from "../../alerts/deps.ts";
import { addSummary, emptySummary, sendLimit } from "../../../messaging/ledger/send.ts";
import { SendContexts, blockedReason, claimStage, logRefusal, reclaimFailed, sendLedgerRows } from "../../alerts/ledger.ts";
import { stageSwitches } from "../../templates/render.ts";
import { CHUNK_SIZE } from "../../alerts/runs.ts";

/** A merchant's notify-all (bulk_notify): by signup ids or by variant. */
export const bulkNotifyJob = declareJob({ name: "bis_bulk_notify", payload: z.object({ ids: z.array(z.string()).optional(), variant_id: z.string().optional() }) });

interface Candidate {
  id: string;
  created_at: Date;
  variant_id: string;
  channel: Channel;
  status: string;
  consent: boolean;
}

/** The job: refusals logged, the rest claimed and sent CHUNK_SIZE at a time. */
async function runBulkNotify(ctx: JobRunContext<z.output<typeof bulkNotifyJob.payload>> & AlertDeps): Promise<unknown> {
  const { shopId, payload: { ids, variant_id: variantId } } = ctx;
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

export const bulkNotifyJobRun = defineJob({ ...bulkNotifyJob, run: runBulkNotify });
