import type { AnyAction } from "../../../../core/action.ts";

/** Offer schedule, restore and lookup. */
export const PREORDERS_OFFER_SCHEDULE_ACTIONS: readonly AnyAction[] = [];
