import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { enqueueJob } from "../../../core/jobs.ts";
import { bulkDeleteJob } from "../jobs/bulk-delete.ts";
import { jobHandleOutput } from "../../../core/outputs.ts";

const BULK_DELETE_MAX = 1000;

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
    return enqueueJob(ctx.db, bulkDeleteJob, { ids }, { shopId: ctx.shopId, total: ids.length });
  },
});

