import { fieldIssue } from "../../../core/errors.ts";
import { z } from "zod";
import { defineGroup } from "../model.ts";
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
