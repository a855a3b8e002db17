import { fieldIssue } from "../../../core/errors.ts";
import { z } from "zod";
import { defineGroup } from "../model.ts";
import { inventoryOutput } from "../outputs.ts";

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
