import { z } from "zod";
import { withTransaction } from "../../../core/db.ts";
import { type JobRunContext, defineJob } from "../../../core/job-task.ts";
import { declareJob } from "../../../core/jobs.ts";
import { isUuid } from "../../../core/params.ts";

/** Deletes many signups of the shop (bulk_delete). */
export const bulkDeleteJob = declareJob({ name: "bis_signups_bulk_delete", payload: z.object({ ids: z.array(z.string()) }) });

/**
 * The job: one set-based delete scoped to the job's shop, then an outcome per id. The deletions
 * and their outcome commit together, so an attempt retried after a crash answers the outcome
 * of the attempt that deleted (rather than not_found for ids it had already deleted).
 */
async function runBulkDelete(ctx: JobRunContext<{ ids: string[] }>): Promise<unknown> {
  if (ctx.job.result !== null && ctx.job.result !== undefined) return ctx.job.result;
  const { shopId, payload: { ids } } = ctx;
  const result = await withTransaction(ctx.pool, async (db) => {
    const valid = ids.filter(isUuid);
    // Their messages first (as DELETE /back_in_stock/signups/{id} does): a send under way holds
    // its ledger row until its mark, which checks the signup; locking the signups first could deadlock.
    await db.query(
      `select l.id from bis_ledger l join bis_signups s on s.id = l.signup_id
       where s.shop_id = $1 and s.id = any($2::uuid[]) order by l.id for update of l`,
      [shopId, valid],
    );
    const { rows } = await db.query<{ id: string }>("delete from bis_signups where shop_id = $1 and id = any($2::uuid[]) returning id", [shopId, valid]);
    const deleted = new Set(rows.map((r) => r.id.toLowerCase()));
    const items = ids.map((id) => ({ id, outcome: deleted.has(id.toLowerCase()) ? "deleted" : "not_found" }));
    const outcome = { deleted: deleted.size, not_found: ids.length - deleted.size, items };
    await db.query("update jobs set result = $2, processed = $3, updated_at = now() where id = $1", [ctx.job.id, JSON.stringify(outcome), ids.length]);
    return outcome;
  });
  return result;
}

export const bulkDeleteJobRun = defineJob({ ...bulkDeleteJob, run: runBulkDelete });
