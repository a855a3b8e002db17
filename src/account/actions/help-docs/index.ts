import type { AnyAction } from "../../../core/action.ts";
import { getHelpDocs } from "./get.ts";

/** Help articles: search and read. */
export const ACCOUNT_HELP_DOCS_ACTIONS: readonly AnyAction[] = [getHelpDocs];
