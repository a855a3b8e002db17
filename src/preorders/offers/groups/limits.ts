import { type Issue, fieldIssue } from "../../../core/errors.ts";
import { jsonInt } from "../../../core/params.ts";
import { z } from "zod";
import { sets } from "../../../core/deep-partial.ts";
import { defineGroup, label } from "../model.ts";
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
