import type { AnyAction } from "../../../core/action.ts";
import { inventoryStatus } from "./inventory-status.ts";
import { bulkResetMetafields, bulkSyncMetafields, resetVariantMetafields } from "./metafields.ts";
import { getProductVariant, listProductVariantOffers, listProductVariants, recalculateProductVariantCount } from "./product-variants.ts";

/** The inventory diagnosis and the product variants; the registry lists them from here (src/action-registry.ts). */
export const PREORDERS_VARIANTS_ACTIONS: readonly AnyAction[] = [
  inventoryStatus,
  listProductVariants,
  getProductVariant,
  listProductVariantOffers,
  recalculateProductVariantCount,
  bulkSyncMetafields,
  bulkResetMetafields,
  resetVariantMetafields,
];
