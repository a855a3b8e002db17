import { z } from "zod";
import { defineAction } from "../../../../core/action.ts";
import { notFound } from "../../../../core/errors.ts";
import { isUuid } from "../../../../core/params.ts";
import { OFFERS_PATH, OFFER_RESOURCE, type OfferStatus, touchOffer, offerParams } from "../../model.ts";
import { loadOfferView } from "../offers.ts";
import { offerWithScheduleOutput } from "./schedule.ts";

export const restoreOffer = defineAction({
  name: "preorders.offers.restore",
  method: "POST",
  path: `${OFFERS_PATH}/{id}/restore`,
  description:
    "Undoes the soft delete of an offer (DELETE /preorders/offers/{id}): it is listed and readable again, and its sync puts it back on the store platform. It comes back disabled (a deleted draft comes back a draft), so nothing shows on the storefront until it is enabled. Answers the full offer with its schedule (empty: deleting dropped it).",
  notes: [
    "Restoring an offer that is not deleted changes nothing and answers it as it is.",
    "404 for an id that never was an offer of this shop.",
    "An all or collection offer's variants are resolved again from the catalog mirror.",
  ],
  aliases: ["undelete a preorder offer", "bring back a deleted offer", "restore a deleted preorder offer"],
  kind: "write",
  params: offerParams,
  input: z.strictObject({}),
  output: offerWithScheduleOutput,
  async handler(ctx, { params }) {
    if (!isUuid(params.id)) throw notFound(OFFER_RESOURCE, params.id);
    const { rows } = await ctx.db.query<{ id: string; status: OfferStatus; deleted_at: Date | null }>(
      "select id, status, deleted_at from preorder_offers where shop_id = $1 and id = $2 for update",
      [ctx.shopId, params.id],
    );
    const row = rows[0];
    if (!row) throw notFound(OFFER_RESOURCE, params.id);
    if (row.deleted_at !== null) {
      const status: OfferStatus = row.status === "draft" ? "draft" : "disabled";
      await ctx.db.query("update preorder_offers set deleted_at = null, status = $3 where shop_id = $1 and id = $2", [ctx.shopId, row.id, status]);
      await touchOffer(ctx.db, ctx.shopId, row.id);
    }
    return loadOfferView(ctx.db, ctx.shopId, row.id);
  },
});
