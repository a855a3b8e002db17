import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { withTransaction } from "../../../core/db.ts";
import type { JobContext } from "../../../core/job-task.ts";
import { declareJobTask, enqueueJob } from "../../../core/jobs.ts";
import { isUuid } from "../../../core/params.ts";
import { jobHandleOutput } from "../../../core/outputs.ts";

export const bulkDeleteTask = declareJobTask({ name: "bis_signups_bulk_delete" });
export const BULK_DELETE_MAX = 1000;

const payload = z.object({ ids: z.array(z.string()) });

export const bulkDeleteSignups = defineAction({
  name: "back_in_stock.signups.bulk_delete",
  aliases: ["delete many back in stock signups", "clear back in stock signups in bulk"],
  notes: ["One signup: DELETE /back_in_stock/signups/{id} answers at once.", "Nothing is sent to a deleted signup afterwards, even by an alert run under way."],
  output: jobHandleOutput,
  method: "POST",
  path: "/back_in_stock/signups/bulk_delete",
  description: `Deletes signups in a background job: ids (array of signup ids, 1-${BULK_DELETE_MAX}; more is 422). Answers a job handle; each submission is a new job. The job's result has deleted and not_found counts and items: one { id, outcome } per distinct id in the order given, outcome deleted or not_found (unknown, malformed or another shop's id). A deleted signup's ledger goes with it; its notifications stay in the log without the signup.`,
  kind: "write",
  async: true,
  input: z.strictObject({
    ids: z.array(z.string().min(1).max(100)).min(1).max(BULK_DELETE_MAX),
  }),
  async handler(ctx, { input }) {
    const ids = [...new Set(input.ids)];
    return enqueueJob(ctx.db, { shopId: ctx.shopId, task: bulkDeleteTask, payload: { ids }, total: ids.length });
  },
});

/**
 * The job: one set-based delete scoped to the job's shop, then an outcome per id. The deletions
 * and their outcome commit together, so an attempt retried after a crash answers the outcome
 * of the attempt that deleted (rather than not_found for ids it had already deleted).
 */
export async function runBulkDelete(ctx: JobContext): Promise<unknown> {
  if (ctx.job.result !== null && ctx.job.result !== undefined) return ctx.job.result;
  const { ids } = payload.parse(ctx.job.payload);
  const shopId = ctx.job.shop_id;
  if (!shopId) throw new Error(`${bulkDeleteTask.name} job without a shop`);
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
