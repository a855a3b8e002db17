import type { SellingPlan } from "../model.ts";
import type { SellingPlanInput } from "./selling-plan-input.ts";
import { billingPolicy, deliveryPolicy, pricingPolicies } from "./selling-plan-policies.ts";
import type { UserErrors } from "./user-errors.ts";

/** The platform's limit of plans in one group. */
const MAX_PLANS_PER_GROUP = 31;

export type PlanFields = Partial<Omit<SellingPlan, "kind" | "id" | "groupId">>;

/**
 * The fields a plan input sets, checked. On create, name, options and the billing and delivery
 * policies are required; on update, only what is given is checked and changed.
 */
export function planFields(input: SellingPlanInput, path: readonly (string | number)[], errors: UserErrors, creating: boolean): PlanFields {
  const fields: PlanFields = {};
  if (input.name !== undefined && input.name !== null) {
    if (input.name.trim() === "") errors.add([...path, "name"], "Name can't be blank", "BLANK");
    else fields.name = input.name;
  } else if (creating) {
    errors.add([...path, "name"], "Name can't be blank", "BLANK");
  }
  if (input.options !== undefined && input.options !== null) {
    if (input.options.length === 0) errors.add([...path, "options"], "Options can't be blank", "BLANK");
    else fields.options = input.options;
  } else if (creating) {
    errors.add([...path, "options"], "Options can't be blank", "BLANK");
  }
  if (input.description !== undefined) fields.description = input.description;
  if (input.position !== undefined) fields.position = input.position;
  if (input.category !== undefined) fields.category = input.category;
  if (input.billingPolicy) {
    const policy = billingPolicy(input.billingPolicy, [...path, "billingPolicy"], errors);
    if (policy) fields.billingPolicy = policy;
  } else if (creating) {
    errors.add([...path, "billingPolicy"], "Selling plans to create billing policy must be present.", "SELLING_PLAN_BILLING_POLICY_MISSING");
  }
  if (input.deliveryPolicy) {
    const policy = deliveryPolicy(input.deliveryPolicy, [...path, "deliveryPolicy"], errors);
    if (policy) fields.deliveryPolicy = policy;
  } else if (creating) {
    errors.add([...path, "deliveryPolicy"], "Selling plans to create delivery policy must be present.", "SELLING_PLAN_DELIVERY_POLICY_MISSING");
  }
  if (input.inventoryPolicy) fields.inventoryPolicy = { reserve: input.inventoryPolicy.reserve ?? "ON_SALE" };
  if (input.pricingPolicies) {
    const policies = pricingPolicies(input.pricingPolicies, [...path, "pricingPolicies"], errors);
    if (policies) fields.pricingPolicies = policies;
  }
  return fields;
}

export function newPlan(id: number, groupId: number, fields: PlanFields): SellingPlan {
  return {
    kind: "SellingPlan",
    id,
    groupId,
    name: fields.name ?? "",
    description: fields.description ?? null,
    options: fields.options ?? [],
    position: fields.position ?? null,
    category: fields.category ?? null,
    billingPolicy: fields.billingPolicy ?? null,
    deliveryPolicy: fields.deliveryPolicy ?? null,
    // Like the platform: inventory is reserved on sale unless the plan says otherwise.
    inventoryPolicy: fields.inventoryPolicy ?? { reserve: "ON_SALE" },
    pricingPolicies: fields.pricingPolicies ?? [],
  };
}

/**
 * A plan with more options than its group names (the group lacks option2's or option3's label), or
 * fewer (the plan lacks the option the group defines): the platform's codes for each.
 */
function optionCountError(planCount: number, groupCount: number, path: readonly (string | number)[], errors: UserErrors): void {
  if (planCount > groupCount) {
    const n = Math.min(groupCount + 1, 3);
    errors.add(path, `Selling plan option${n} label is missing on the parent group`, n === 3 ? "SELLING_PLAN_MISSING_OPTION3_LABEL_ON_PARENT_GROUP" : "SELLING_PLAN_MISSING_OPTION2_LABEL_ON_PARENT_GROUP");
  } else {
    const n = Math.min(planCount + 1, 3);
    errors.add(path, `Selling plan option${n} is required as defined on the parent group`, n === 3 ? "SELLING_PLAN_OPTION3_REQUIRED_AS_DEFINED_ON_PARENT_GROUP" : "SELLING_PLAN_OPTION2_REQUIRED_AS_DEFINED_ON_PARENT_GROUP");
  }
}

/**
 * Checks the group's plans as they would be after the change: option counts match the group's,
 * no two plans share options or a name (the platform's SELLING_PLAN_DUPLICATE_OPTIONS and
 * SELLING_PLAN_DUPLICATE_NAME), and there are not too many.
 */
export function checkPlanSet(
  plans: readonly { name: string; options: readonly string[]; path: readonly (string | number)[] }[],
  groupOptions: readonly string[],
  errors: UserErrors,
): void {
  if (plans.length > MAX_PLANS_PER_GROUP) {
    errors.add(["input"], `Selling plan groups can't have more than ${MAX_PLANS_PER_GROUP} selling plans.`, "SELLING_PLAN_COUNT_UPPER_BOUND");
  }
  const seen = new Set<string>();
  const names = new Set<string>();
  for (const plan of plans) {
    if (plan.name !== "" && names.has(plan.name)) {
      errors.add([...plan.path, "name"], "Cannot have multiple selling plans with the same name", "SELLING_PLAN_DUPLICATE_NAME");
    }
    names.add(plan.name);
    if (plan.options.length > 0 && plan.options.length !== groupOptions.length) optionCountError(plan.options.length, groupOptions.length, [...plan.path, "options"], errors);
    const key = JSON.stringify(plan.options);
    if (plan.options.length > 0 && seen.has(key)) {
      errors.add([...plan.path, "options"], "Selling plan options must be unique within the group", "SELLING_PLAN_DUPLICATE_OPTIONS");
    }
    seen.add(key);
  }
}
