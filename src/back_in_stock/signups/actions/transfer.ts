import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { assertCatalogMirrored } from "../../../catalog/readiness.ts";
import { conflict, unprocessable } from "../../../core/errors.ts";
import { presentSignupWithSync, signupWithSyncOutput } from "./output.ts";
import { type SignupRow, VARIANT_NOT_IN_SHOP_ISSUE, findVariant, loadSignup, variantIdSchema } from "../model.ts";

export const transferSignup = defineAction({
  name: "back_in_stock.signups.transfer",
  aliases: ["move a back in stock signup to another variant", "switch the variant a customer waits for"],
  notes: ["The signup keeps its place in the queue of the new variant (its created_at)."],
  output: signupWithSyncOutput,
  method: "POST",
  path: "/back_in_stock/signups/{id}/transfer",
  description:
    "Moves a waiting signup to another variant of this shop (variant_id: numeric id or gid; 422 `variant_id must be a variant of this shop` otherwise), keeping its place in the queue (created_at), contact, locale, consent, quantity and market_id. 409 when the signup is not waiting (a notified, converted or unsubscribed signup is not moved: each stage is sent at most once per signup) or when the contact already has a signup on the target variant (that signup's id is in the reason). Transferring to the variant it is already on answers it unchanged.",
  kind: "write",
  params: z.object({ id: z.string() }),
  input: z.strictObject({ variant_id: variantIdSchema }),
  async handler(ctx, { params, input }) {
    const signup = await loadSignup(ctx.db, ctx.shopId, params.id, true);
    const variant = await findVariant(ctx.db, ctx.shopId, input.variant_id);
    if (!variant) {
      await assertCatalogMirrored(ctx.db, ctx.shopId);
      throw unprocessable([VARIANT_NOT_IN_SHOP_ISSUE]);
    }
    if (variant.id === signup.variant_id) return presentSignupWithSync(ctx.db, signup);
    if (signup.status !== "waiting") throw conflict(`Only a waiting signup can be transferred; this one is ${signup.status}`);
    const { rows: taken } = await ctx.db.query<{ id: string }>(
      "select id from bis_signups where shop_id = $1 and variant_id = $2 and channel = $3 and contact = $4",
      [ctx.shopId, variant.id, signup.channel, signup.contact],
    );
    const existing = taken[0];
    if (existing) throw conflict(`This contact already has a signup on variant ${variant.id} (${existing.id})`);
    try {
      const { rows } = await ctx.db.query<SignupRow>(
        "update bis_signups set variant_id = $2, product_id = $3, updated_at = now() where id = $1 returning *",
        [signup.id, variant.id, variant.product_id],
      );
      const row = rows[0];
      if (!row) throw new Error("signup update returned no row");
      return presentSignupWithSync(ctx.db, row);
    } catch (error) {
      // A concurrent signup for the same contact on the target variant took the unique key first.
      if ((error as { code?: string }).code === "23505") throw conflict(`This contact already has a signup on variant ${variant.id}`);
      throw error;
    }
  },
});
