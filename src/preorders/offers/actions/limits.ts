import { type Issue, fieldIssue } from "../../../core/errors.ts";
import { jsonInt } from "../../../core/params.ts";
import { z } from "zod";
import type { AnyAction } from "../../../core/action.ts";
import { sets } from "../../../core/deep-partial.ts";
import { defineGroup, groupGetAction, groupPatchAction, label } from "../model.ts";
import { limitsOutput } from "../outputs.ts";

const count = jsonInt().min(0);

/** Quantity limits: per order, per customer and in total (null: no limit), and what the storefront shows of them. */
const limitsSchema = z.strictObject({
  per_order: z.strictObject({ min: count.default(1), max: count.nullable().default(null) }).prefault({}),
  per_customer: z.strictObject({ max: count.nullable().default(null) }).prefault({}),
  // current_count (units preordered so far) is derived from the orders (preorder_offer_units), not edited
  total: z.strictObject({ max: count.nullable().default(null) }).prefault({}),
  display: z
    .strictObject({
      show_remaining: z.boolean().default(false),
      quantity_limit_text: label.default("Only {{ remaining }} left to preorder"),
    })
    .prefault({}),
});

export const limitsGroup = defineGroup({
  key: "limits",
  schema: limitsSchema,
  output: limitsOutput,
  rules(value, { patch }) {
    const violations: Issue[] = [];
    const { min, max } = value.per_order;
    if (max !== null && min > max) {
      violations.push(
        sets(patch, "per_order", "max") ? fieldIssue("per_order.max", `must be at least per_order.min (${min})`) : fieldIssue("per_order.min", `must be at most per_order.max (${max})`),
      );
    }
    const customerMax = value.per_customer.max;
    if (customerMax !== null && min > customerMax) {
      violations.push(
        sets(patch, "per_customer", "max")
          ? fieldIssue("per_customer.max", `must be at least per_order.min (${min})`)
          : fieldIssue("per_order.min", `must be at most per_customer.max (${customerMax})`),
      );
    }
    return violations;
  },
  present(value, row) {
    return { ...value, total: { max: value.total.max, current_count: row.current_count } };
  },
});

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
