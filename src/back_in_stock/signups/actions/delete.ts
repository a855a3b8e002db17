import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { timestampOutput } from "../../../core/outputs.ts";
import { notFound } from "../../../core/errors.ts";
import { SIGNUP_RESOURCE, type SignupRow, loadSignup, presentSignup } from "../model.ts";
import { presentSignupWithSync, signupWithSyncOutput } from "./output.ts";

/**
 * Deletes one signup. Its ledger rows and reminder queue entry go with it (foreign keys on
 * delete cascade), so nothing is sent to it afterwards: an alert run claims from bis_signups
 * chunk by chunk, and a send already queued finds no ledger row (a sender holding the row's lock
 * makes the delete wait until that send is marked). Its notifications stay in the log with
 * signup_id null.
 */
export const deleteSignup = defineAction({
  name: "back_in_stock.signups.delete",
  method: "DELETE",
  path: "/back_in_stock/signups/{id}",
  aliases: ["delete a back in stock signup", "remove a customer from a back in stock waiting list", "cancel one back in stock request"],
  description:
    "Deletes a back-in-stock signup for good (any status); it takes no parameter. Answers 202 with { id, deleted_at, signup }: signup is its last state before the delete. Nothing is sent to it afterwards, including by an alert run under way, a reminder due or a retry queued; its entries in the notifications log stay, with signup_id and recipient null. Afterwards every path of the signup answers 404; a later signup of the same contact for the variant is a new signup, at the back of the queue. 404 for an unknown id or another shop's.",
  notes: [
    "To stop messages but keep the record, use POST /back_in_stock/signups/{id}/unsubscribe instead.",
    "Many at once: POST /back_in_stock/signups/bulk_delete (a job).",
    "A message already handed to the channel when the delete arrives is not recalled.",
  ],
  kind: "write",
  params: z.object({ id: z.string() }),
  input: z.strictObject({}),
  output: z.strictObject({
    id: z.string(),
    deleted_at: timestampOutput,
    signup: signupWithSyncOutput.describe("the signup as it was just before the delete"),
  }),
  async handler(ctx, { params }) {
    const signup = await loadSignup(ctx.db, ctx.shopId, params.id);
    // Its sync rows go with it (on delete cascade): the last state is read first.
    const last = await presentSignupWithSync(ctx.db, signup);
    // Its messages first, the signup after: a sender holds a message's ledger row from before the
    // send until it is marked, and marking checks the signup's foreign keys, so locking the signup
    // first could deadlock with a send under way. This waits for that send; later senders skip
    // the rows (skip locked) and then find them gone.
    await ctx.db.query("select id from bis_ledger where signup_id = $1 order by id for update", [signup.id]);
    const { rows } = await ctx.db.query<SignupRow & { deleted_at: Date }>(
      "delete from bis_signups where id = $1 and shop_id = $2 returning *, now() as deleted_at",
      [signup.id, ctx.shopId],
    );
    const row = rows[0];
    // Deleted by another request meanwhile.
    if (!row) throw notFound(SIGNUP_RESOURCE, params.id);
    return { id: row.id, deleted_at: row.deleted_at.toISOString(), signup: { ...last, ...presentSignup(row) } };
  },
});
