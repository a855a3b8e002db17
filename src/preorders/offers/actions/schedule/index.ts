import type { AnyAction } from "../../../../core/action.ts";
import { offerLookup } from "./lookup.ts";
import { restoreOffer } from "./restore.ts";
import { getOfferSchedule, scheduleOffer, unscheduleOffer } from "./schedule.ts";

/** Offer schedule, restore and lookup. */
export const PREORDERS_OFFER_SCHEDULE_ACTIONS: readonly AnyAction[] = [scheduleOffer, unscheduleOffer, getOfferSchedule, restoreOffer, offerLookup];
