import type { Db } from "../../core/db.ts";

/**
 * Per (offer, variant) overrides of the offer's storefront shipping text and of its per-order
 * maximum (STOQ's per-variant shipping text and max count; decision 0203). They act in two places:
 * the offer's metafield on that variant carries them in place of the offer's values (the offer
 * sync, sync/storefront-config.ts), and the per-order maximum at ingest is the variant's own
 * (orders/rule-breaks.ts). Stored apart from the offer's variants (preorder_offer_variant_overrides),
 * whose rows a resolution rewrites.
 */
export interface VariantOverride {
  shipping_text: string | null;
  max_count: number | null;
}

/** The offer's overrides by variant gid. */
export async function loadVariantOverrides(db: Db, offerId: string): Promise<Map<string, VariantOverride>> {
  const { rows } = await db.query<VariantOverride & { variant_id: string }>(
    "select variant_id, shipping_text, max_count from preorder_offer_variant_overrides where offer_id = $1",
    [offerId],
  );
  return new Map(rows.map((r) => [r.variant_id, { shipping_text: r.shipping_text, max_count: r.max_count }]));
}

/**
 * Sets the fields given (undefined: kept; null: cleared) and answers the variant's overrides
 * after the change. A variant left with neither has its row removed.
 */
export async function changeVariantOverride(
  db: Db,
  target: { shopId: string; offerId: string; variantId: string },
  change: { shipping_text?: string | null; max_count?: number | null },
): Promise<VariantOverride> {
  const { offerId, shopId, variantId } = target;
  const { rows } = await db.query<VariantOverride>(
    "select shipping_text, max_count from preorder_offer_variant_overrides where offer_id = $1 and variant_id = $2 for update",
    [offerId, variantId],
  );
  const current = rows[0];
  const next: VariantOverride = {
    shipping_text: change.shipping_text !== undefined ? change.shipping_text : (current?.shipping_text ?? null),
    max_count: change.max_count !== undefined ? change.max_count : (current?.max_count ?? null),
  };
  if (next.shipping_text === null && next.max_count === null) {
    if (current) await db.query("delete from preorder_offer_variant_overrides where offer_id = $1 and variant_id = $2", [offerId, variantId]);
  } else {
    await db.query(
      `insert into preorder_offer_variant_overrides (offer_id, shop_id, variant_id, shipping_text, max_count) values ($1, $2, $3, $4, $5)
       on conflict (offer_id, variant_id) do update set shipping_text = excluded.shipping_text, max_count = excluded.max_count, updated_at = now()`,
      [offerId, shopId, variantId, next.shipping_text, next.max_count],
    );
  }
  return next;
}
