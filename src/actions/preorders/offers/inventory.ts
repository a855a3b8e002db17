import { fieldIssue } from "../../../core/errors.ts";
import { z } from "zod";
import type { AnyAction } from "../../../core/action.ts";
import { defineGroup, groupAction, groupGetAction, groupPatchAction } from "./model.ts";
import { inventoryOutput } from "./outputs.ts";

export const RESERVATION_TIMINGS = ["on_sale", "on_fulfillment"] as const;

/** Whose inventory counts, when preordered units are taken from it, and selling past zero. */
export const inventorySchema = z.strictObject({
  // platform: the store platform's inventory; app: this service counts against limits.total
  provider: z.enum(["platform", "app"]).default("platform"),
  // on_sale: held at order time; on_fulfillment: taken when the order is fulfilled
  reservation: z.strictObject({ timing: z.enum(RESERVATION_TIMINGS).default("on_sale") }).prefault({}),
  continue_selling: z
    .strictObject({
      enabled: z.boolean().default(true),
      auto_apply_to_new_variants: z.boolean().default(false),
    })
    .prefault({}),
});

export type Inventory = z.output<typeof inventorySchema>;

export const inventoryGroup = defineGroup({
  key: "inventory",
  schema: inventorySchema,
  output: inventoryOutput,
  rules(value) {
    if (value.continue_selling.auto_apply_to_new_variants && !value.continue_selling.enabled) {
      return [fieldIssue("continue_selling.auto_apply_to_new_variants", "cannot be true while continue_selling.enabled is false")];
    }
    return [];
  },
});

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
