import type { AnyAction } from "../../../core/action.ts";
import { groupGetAction, groupPatchAction } from "../model.ts";
import { limitsGroup } from "../groups/limits.ts";

export const LIMITS_ACTIONS: readonly AnyAction[] = [
  groupGetAction(
    limitsGroup,
    "The offer's quantity limits: per_order (min, max), per_customer (max), total (max, current_count: units preordered so far) and display (show_remaining, quantity_limit_text). A null max is no limit.",
    { aliases: ["show the preorder quantity limits", "how many units are left to preorder"] },
  ),
  groupPatchAction(
    limitsGroup,
    "Changes quantity limits: per_order.min and max, per_customer.max, total.max (integers >= 0, or null for no limit on a max), display.",
    {
      aliases: ["update the preorder quantity limits", "limit preorders per customer", "cap the total number of preorders"],
      notes: ["per_order.min must be at most per_order.max and per_customer.max.", "total.current_count is kept by the service and cannot be set."],
    },
  ),
];
