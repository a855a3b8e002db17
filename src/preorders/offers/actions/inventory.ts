import { z } from "zod";
import type { AnyAction } from "../../../core/action.ts";
import { groupAction, groupGetAction, groupPatchAction } from "../model.ts";
import { RESERVATION_TIMINGS, inventoryGroup } from "../groups/inventory.ts";

export const INVENTORY_ACTIONS: readonly AnyAction[] = [
  groupGetAction(
    inventoryGroup,
    "The offer's inventory settings: provider (platform or app), reservation.timing (on_sale or on_fulfillment) and continue_selling (enabled, auto_apply_to_new_variants).",
    { aliases: ["show the preorder inventory settings", "when is preorder stock reserved"] },
  ),
  groupPatchAction(
    inventoryGroup,
    "Changes inventory settings: provider, reservation, continue_selling. continue_selling.auto_apply_to_new_variants needs continue_selling.enabled.",
    {
      aliases: ["update the preorder inventory settings", "keep selling preorders past zero stock"],
      notes: ["continue_selling.auto_apply_to_new_variants needs continue_selling.enabled."],
    },
  ),
  groupAction(inventoryGroup, {
    action: "set_reservation_timing",
    aliases: ["set the preorder inventory reservation timing", "reserve preorder stock at fulfillment"],
    description:
      "Sets when preordered units are taken from inventory: timing on_sale (held at order time) or on_fulfillment (when the order is fulfilled). Answers the inventory group.",
    input: z.strictObject({ timing: z.enum(RESERVATION_TIMINGS) }),
    patch: (input) => ({ reservation: { timing: input.timing } }),
  }),
];
