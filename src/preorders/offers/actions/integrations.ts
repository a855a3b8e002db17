import { fieldIssue } from "../../../core/errors.ts";
import { z } from "zod";
import type { AnyAction } from "../../../core/action.ts";
import { defineGroup, groupGetAction, groupPatchAction } from "../model.ts";
import { integrationsOutput } from "../outputs.ts";

/** Where else the offer applies: point of sale and B2B (wholesale) checkouts. */
const integrationsSchema = z.strictObject({
  pos: z.strictObject({ enabled: z.boolean().default(false), skip_inventory_check: z.boolean().default(false) }).prefault({}),
  b2b: z.strictObject({ enabled: z.boolean().default(false) }).prefault({}),
});

export const integrationsGroup = defineGroup({
  key: "integrations",
  schema: integrationsSchema,
  output: integrationsOutput,
  rules(value) {
    if (value.pos.skip_inventory_check && !value.pos.enabled) return [fieldIssue("pos.skip_inventory_check", "cannot be true while pos.enabled is false")];
    return [];
  },
});

export const INTEGRATIONS_ACTIONS: readonly AnyAction[] = [
  groupGetAction(integrationsGroup, "The offer's integrations: pos (enabled, skip_inventory_check) and b2b (enabled).", {
    aliases: ["show the preorder pos and b2b settings", "is a preorder offer available at point of sale"],
  }),
  groupPatchAction(integrationsGroup, "Changes integrations: pos, b2b. pos.skip_inventory_check needs pos.enabled.", {
    aliases: ["enable preorders at point of sale", "enable preorders for b2b customers", "update the preorder integrations"],
    notes: ["pos.skip_inventory_check needs pos.enabled."],
  }),
];
