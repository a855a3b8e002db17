import type { AnyAction } from "../../../core/action.ts";
import { groupGetAction, groupPatchAction } from "../model.ts";
import { marketsGroup } from "../groups/markets.ts";

export const MARKETS_ACTIONS: readonly AnyAction[] = [
  groupGetAction(
    marketsGroup,
    "The offer's markets: enabled (false: the offer applies everywhere), applies_to_all_markets, and market_ids (ids from GET /account/markets) when it applies only to those.",
    { aliases: ["show the preorder offer markets", "in which markets does a preorder apply"] },
  ),
  groupPatchAction(
    marketsGroup,
    "Changes where the offer applies: enabled, applies_to_all_markets, market_ids (replaced whole).",
    {
      aliases: ["limit a preorder offer to some markets", "update the preorder offer markets"],
      notes: [
        "enabled true with applies_to_all_markets false needs at least one market id.",
        "applies_to_all_markets true clears market_ids.",
        "Each market id must be a market of the shop (GET /account/markets).",
      ],
    },
  ),
];
