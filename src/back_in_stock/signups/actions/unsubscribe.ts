import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import type { Db } from "../../../core/db.ts";
import { type SignupRow, loadSignup } from "../model.ts";
import { presentSignupWithSync, signupWithSyncOutput } from "./output.ts";

/**
 * Unsubscribes a signup (of the given shop, or of any shop when shopId is null: the signed link
 * carries no shop). Idempotent: an unsubscribed signup keeps its first unsubscribed_at.
 * Answers the row, or undefined when there is no such signup.
 */
export async function unsubscribeSignup(db: Db, shopId: string | null, signupId: string): Promise<SignupRow | undefined> {
  const { rows } = await db.query<SignupRow>(
    `update bis_signups set status = 'unsubscribed', unsubscribed_at = coalesce(unsubscribed_at, now()),
       updated_at = case when status = 'unsubscribed' then updated_at else now() end
     where id = $1 and ($2::uuid is null or shop_id = $2)
     returning *`,
    [signupId, shopId],
  );
  return rows[0];
}

export const unsubscribeSignupAction = defineAction({
  name: "back_in_stock.signups.unsubscribe",
  aliases: ["unsubscribe a back in stock signup", "stop back in stock messages to a customer"],
  notes: ["The signup is kept (for reports); DELETE /back_in_stock/signups/{id} removes it."],
  output: signupWithSyncOutput,
  method: "POST",
  path: "/back_in_stock/signups/{id}/unsubscribe",
  description:
    "Unsubscribes a signup: status unsubscribed, no further message of any stage (sends are logged as blocked). Idempotent: unsubscribing again answers the same signup. The customer can do the same with the signed link in every message (/back_in_stock/unsubscribe?signup=<id>&sig=<signature> on the service's public URL, no API key): GET shows a confirmation page whose button POSTs; POST unsubscribes, including RFC 8058 one-click from mail clients (List-Unsubscribe-Post). A later signup with consent: true resumes it.",
  kind: "write",
  params: z.object({ id: z.string() }),
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    const signup = await loadSignup(ctx.db, ctx.shopId, params.id, true);
    const row = await unsubscribeSignup(ctx.db, ctx.shopId, signup.id);
    if (!row) throw new Error("signup update returned no row");
    return presentSignupWithSync(ctx.db, row);
  },
});
