import type { AnyAction } from "../../../core/action.ts";
import { inventoryStatus } from "./inventory-status.ts";
import { listOfferVariants } from "./list.ts";

/** An offer's variant list and the inventory diagnosis; the registry lists them from here (src/actions/index.ts). */
export const PREORDERS_VARIANTS_ACTIONS: readonly AnyAction[] = [listOfferVariants, inventoryStatus];
