import type { Context } from "../context.ts";
import { gid } from "../ids.ts";
import type { Variant } from "../model.ts";
import { formatCents } from "../money.ts";

/** One seeded variant as `GET /admin/variants` lists it: ids in both forms, and stock per active location. */
export function variantListing(ctx: Context, variant: Variant) {
  const { store } = ctx;
  const index = store.variantIndex(variant);
  const product = store.productOf(variant);
  return {
    id: gid("ProductVariant", variant.id),
    legacy_id: variant.id,
    product_id: gid("Product", product.id),
    product_legacy_id: product.id,
    product_title: product.title,
    title: variant.title,
    sku: variant.sku,
    price: formatCents(variant.priceCents),
    inventory_policy: variant.inventoryPolicy,
    inventory_item_id: store.inventoryItemId(index),
    available: store.activeLocations().map((location) => ({
      location_id: location.id,
      location_name: location.name,
      available: location.levels?.available[index] ?? 0,
    })),
  };
}
