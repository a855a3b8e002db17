import type { AnyAction } from "../../../core/action.ts";
import { integrationsGroup } from "../groups/integrations.ts";
import { groupGetAction, groupPatchAction } from "../model.ts";

export const INTEGRATIONS_ACTIONS: readonly AnyAction[] = [
  groupGetAction(integrationsGroup, "The offer's integrations: pos (enabled, skip_inventory_check) and b2b (enabled).", {
    aliases: ["show the preorder pos and b2b settings", "is a preorder offer available at point of sale"],
  }),
  groupPatchAction(integrationsGroup, "Changes integrations: pos, b2b. pos.skip_inventory_check needs pos.enabled.", {
    aliases: ["enable preorders at point of sale", "enable preorders for b2b customers", "update the preorder integrations"],
    notes: ["pos.skip_inventory_check needs pos.enabled."],
  }),
];
