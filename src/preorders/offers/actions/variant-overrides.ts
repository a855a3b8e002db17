import { z } from "zod";
import { type ActionContext, type AnyAction, defineAction } from "../../../core/action.ts";
import { fieldIssue, notFound, unprocessable } from "../../../core/errors.ts";
import { jsonInt, platformGid } from "../../../core/params.ts";
import { limitsGroup } from "../groups/limits.ts";
import { OFFERS_PATH, OfferState, findOffer, longText, touchOffer } from "../model.ts";
import { type VariantOverride, changeVariantOverride } from "../variant-overrides.ts";

/**
 * Per-variant overrides of an offer (decision 0203), under the offer's variants: the shipping text
 * the storefront shows for that variant, and its own per-order maximum. Each change makes the
 * offer due for sync, which writes the variant's metafield with them; the maximum also judges
 * orders at ingest.
 */

const params = z.strictObject({ id: z.string(), variant_id: z.string() });

const output = z.strictObject({
  offer_id: z.string(),
  variant_id: z.int().describe("the platform's numeric id"),
  gid: z.string(),
  shipping_text: z.string().nullable().describe("shown for this variant instead of the offer's shipping.display.shipping_text; null: the offer's"),
  max_count: z.int().nullable().describe("the most units of this variant one order may hold, instead of the offer's limits.per_order.max; null: the offer's"),
});

const NOTES = [
  "The variant must be one of the offer's variants (GET /preorders/offers/{id}/variants): 404 otherwise.",
  "The offer's sync writes the variant's storefront metafield (offer-<id>) with the override in place of the offer's value; the offer's sync.status shows when it is done.",
  "An override stays while its variant leaves the offer and applies again if it comes back; clear_overrides removes it.",
];

async function apply(ctx: ActionContext, offerParam: string, variantParam: string, change: { shipping_text?: string | null; max_count?: number | null }) {
  const offer = await findOffer(ctx.db, ctx.shopId, offerParam, true);
  const variantId = platformGid("ProductVariant", variantParam);
  const { rows } = await ctx.db.query<{ legacy_id: string }>("select legacy_id::text from preorder_offer_variants where offer_id = $1 and variant_id = $2", [offer.id, variantId]);
  const legacy = rows[0]?.legacy_id;
  if (legacy === undefined) throw notFound("Offer variant", variantParam);
  if (change.max_count !== undefined && change.max_count !== null) {
    const { min } = new OfferState(offer).get(limitsGroup).per_order;
    if (change.max_count < min) throw unprocessable([fieldIssue("max_count", `must be at least the offer's limits.per_order.min (${min})`)]);
  }
  const next: VariantOverride = await changeVariantOverride(ctx.db, { shopId: ctx.shopId, offerId: offer.id, variantId }, change);
  await touchOffer(ctx.db, ctx.shopId, offer.id);
  return { offer_id: offer.id, variant_id: Number(legacy), gid: variantId, ...next };
}

const setShippingText = defineAction({
  name: "preorders.offers.variants.set_shipping_text",
  method: "POST",
  path: `${OFFERS_PATH}/{id}/variants/{variant_id}/set_shipping_text`,
  description:
    "Sets the shipping text the storefront shows for one variant of the offer, in place of the offer's shipping.display.shipping_text (text; null clears it back to the offer's). variant_id: the numeric id or gid. Answers the variant's overrides.",
  aliases: ["set the shipping text of one preorder variant", "override the preorder shipping message for a variant"],
  notes: NOTES,
  output,
  kind: "write",
  params,
  input: z.strictObject({ text: longText.nullable() }),
  async handler(ctx, { params: p, input }) {
    return apply(ctx, p.id, p.variant_id, { shipping_text: input.text });
  },
});

const setMaxCount = defineAction({
  name: "preorders.offers.variants.set_max_count",
  method: "POST",
  path: `${OFFERS_PATH}/{id}/variants/{variant_id}/set_max_count`,
  description:
    "Sets the most units of one variant an order may hold, in place of the offer's limits.per_order.max (max_count: integer >= the offer's per_order.min; null clears it back to the offer's). The storefront's metafield of the variant carries it as its limits.per_order.max, and an order that holds more is flagged at ingest (per_order.max, tagged preorder-limit-per-order). Answers the variant's overrides.",
  aliases: ["set the max preorder quantity of a variant", "limit how many of one variant an order may preorder"],
  notes: NOTES,
  output,
  kind: "write",
  params,
  input: z.strictObject({ max_count: jsonInt().min(1).nullable() }),
  async handler(ctx, { params: p, input }) {
    return apply(ctx, p.id, p.variant_id, { max_count: input.max_count });
  },
});

const clearOverrides = defineAction({
  name: "preorders.offers.variants.clear_overrides",
  method: "POST",
  path: `${OFFERS_PATH}/{id}/variants/{variant_id}/clear_overrides`,
  description: "Removes both overrides of one variant of the offer (shipping text and max count): it follows the offer's settings again. Idempotent. Answers the variant's overrides (both null).",
  aliases: ["clear the overrides of a preorder variant", "reset a variant to the offer's shipping text and limits"],
  notes: NOTES,
  output,
  kind: "write",
  params,
  input: z.strictObject({}),
  async handler(ctx, { params: p }) {
    return apply(ctx, p.id, p.variant_id, { shipping_text: null, max_count: null });
  },
});

export const VARIANT_OVERRIDE_ACTIONS: readonly AnyAction[] = [setShippingText, setMaxCount, clearOverrides];
