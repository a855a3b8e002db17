import type { AnyAction } from "../../core/action.ts";

/** Account: plan usage, products, sending, settings, templates, translations. */
export const ACCOUNT_ACTIONS: readonly AnyAction[] = [];
