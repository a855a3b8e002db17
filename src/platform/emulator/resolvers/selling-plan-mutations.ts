import type { Context } from "../context.ts";
import { gid, parseGid } from "../ids.ts";
import type { SellingPlanGroup } from "../model.ts";
import type { ResourceInput, SellingPlanGroupInput } from "./selling-plan-input.ts";
import { type PlanFields, checkPlanSet, newPlan, planFields } from "./selling-plan-plans.ts";
import type { Resolvers } from "./types.ts";
import { UserErrors } from "./user-errors.ts";

/** The platform's limit on ids in one call. */
const MAX_IDS_PER_CALL = 250;

type Path = readonly (string | number)[];

function existingIds(ctx: Context, type: "ProductVariant" | "Product", ids: readonly string[] | null | undefined, path: Path, errors: UserErrors): number[] {
  if (!ids) return [];
  if (ids.length > MAX_IDS_PER_CALL) {
    errors.add(path, `At most ${MAX_IDS_PER_CALL} ids can be given at once (got ${ids.length})`, "TOO_BIG");
    return [];
  }
  const found: number[] = [];
  ids.forEach((id) => {
    const parsed = parseGid(id);
    const exists = parsed?.type === type && (type === "Product" ? ctx.store.product(parsed.id) : ctx.store.variant(parsed.id));
    if (parsed && exists) found.push(parsed.id);
    // As the platform answers them (sellingPlanGroupAddProductVariants captured): on the list, not the element.
    else if (type === "Product") errors.add(path, `Product ${id} does not exist.`, "NOT_FOUND");
    else errors.add(path, `Product variant ${id} does not exist.`, "NOT_FOUND");
  });
  return found;
}

function findGroup(ctx: Context, id: string, errors: UserErrors): SellingPlanGroup | undefined {
  const parsed = parseGid(id);
  const group = parsed?.type === "SellingPlanGroup" ? ctx.store.sellingPlanGroups.get(parsed.id) : undefined;
  if (!group) errors.add(["id"], "Selling plan group does not exist.", "GROUP_DOES_NOT_EXIST");
  return group;
}

/** Name, merchant code and options: required on create, non-blank when given on update. */
function groupFields(input: SellingPlanGroupInput, errors: UserErrors, creating: boolean): Partial<SellingPlanGroup> {
  const fields: Partial<SellingPlanGroup> = {};
  for (const [key, label] of [
    ["name", "Name"],
    ["merchantCode", "Merchant code"],
  ] as const) {
    const value = input[key];
    if (value !== null && value !== undefined && value.trim() !== "") fields[key] = value;
    else if (creating || (value !== null && value !== undefined)) errors.add(["input", key], `${label} can't be blank`, "BLANK");
  }
  if (input.options && input.options.length > 0) fields.options = input.options;
  else if (creating || input.options) errors.add(["input", "options"], "Options can't be blank", "BLANK");
  if (input.description !== undefined) fields.description = input.description;
  if (input.position !== undefined) fields.position = input.position;
  return fields;
}

function createPlans(ctx: Context, group: SellingPlanGroup, plans: readonly PlanFields[]): void {
  for (const fields of plans) {
    const plan = newPlan(ctx.store.nextSellingPlanId(), group.id, fields);
    ctx.store.sellingPlans.set(plan.id, plan);
    group.planIds.push(plan.id);
  }
}

export const sellingPlanMutations: Resolvers = {
  Mutation: {
    sellingPlanGroupCreate: (_: unknown, args: { input: SellingPlanGroupInput; resources?: ResourceInput | null }, ctx: Context) => {
      const errors = new UserErrors();
      const { input } = args;
      const fields = groupFields(input, errors, true);
      if (input.sellingPlansToUpdate?.length) errors.add(["input", "sellingPlansToUpdate"], "Selling plans can't be updated in a group being created", "INVALID");
      if (input.sellingPlansToDelete?.length) errors.add(["input", "sellingPlansToDelete"], "Selling plans can't be deleted in a group being created", "INVALID");
      const plans = (input.sellingPlansToCreate ?? []).map((plan, i) => {
        const path = ["input", "sellingPlansToCreate", i];
        return { fields: planFields(plan, path, errors, true), path };
      });
      if (plans.length === 0) errors.add(["input"], "Selling plan groups must have at least 1 selling plan.", "SELLING_PLAN_COUNT_LOWER_BOUND");
      checkPlanSet(
        plans.map((p) => ({ name: p.fields.name ?? "", options: p.fields.options ?? [], path: p.path })),
        fields.options ?? [],
        errors,
      );
      const variantIds = existingIds(ctx, "ProductVariant", args.resources?.productVariantIds, ["resources", "productVariantIds"], errors);
      const productIds = existingIds(ctx, "Product", args.resources?.productIds, ["resources", "productIds"], errors);
      if (errors.any) return { sellingPlanGroup: null, userErrors: errors.list };
      const group: SellingPlanGroup = {
        kind: "SellingPlanGroup",
        id: ctx.store.nextSellingPlanGroupId(),
        name: fields.name ?? "",
        merchantCode: fields.merchantCode ?? "",
        description: fields.description ?? null,
        options: fields.options ?? [],
        position: fields.position ?? null,
        planIds: [],
        variantIds: new Set(variantIds),
        productIds: new Set(productIds),
      };
      ctx.store.sellingPlanGroups.set(group.id, group);
      createPlans(
        ctx,
        group,
        plans.map((p) => p.fields),
      );
      return { sellingPlanGroup: group, userErrors: [] };
    },

    sellingPlanGroupUpdate: (_: unknown, args: { id: string; input: SellingPlanGroupInput }, ctx: Context) => {
      const errors = new UserErrors();
      const failed = { sellingPlanGroup: null, deletedSellingPlanIds: null, userErrors: errors.list };
      const group = findGroup(ctx, args.id, errors);
      if (!group) return failed;
      const { input } = args;
      const fields = groupFields(input, errors, false);
      const toDelete = new Set<number>();
      (input.sellingPlansToDelete ?? []).forEach((id, i) => {
        const parsed = parseGid(id);
        if (parsed?.type === "SellingPlan" && group.planIds.includes(parsed.id)) toDelete.add(parsed.id);
        else errors.add(["input", "sellingPlansToDelete", i], `Selling plan ${id} does not exist in this group`, "PLAN_DOES_NOT_EXIST");
      });
      const updates = new Map<number, { fields: PlanFields; path: Path }>();
      (input.sellingPlansToUpdate ?? []).forEach((plan, i) => {
        const path = ["input", "sellingPlansToUpdate", i];
        const parsed = plan.id ? parseGid(plan.id) : undefined;
        // The platform's own spelling.
        if (!plan.id) errors.add([...path, "id"], "Id must be specificed to update a Selling Plan.", "PLAN_ID_MUST_BE_SPECIFIED_TO_UPDATE");
        else if (parsed?.type !== "SellingPlan" || !group.planIds.includes(parsed.id)) {
          errors.add([...path, "id"], `Selling plan ${plan.id} does not exist in this group`, "PLAN_DOES_NOT_EXIST");
        } else updates.set(parsed.id, { fields: planFields(plan, path, errors, false), path });
      });
      const created = (input.sellingPlansToCreate ?? []).map((plan, i) => {
        const path = ["input", "sellingPlansToCreate", i];
        return { fields: planFields(plan, path, errors, true), path };
      });
      const remaining = group.planIds
        .filter((id) => !toDelete.has(id))
        .map((id) => {
          const plan = ctx.store.sellingPlans.get(id);
          const update = updates.get(id);
          return { name: update?.fields.name ?? plan?.name ?? "", options: update?.fields.options ?? plan?.options ?? [], path: update?.path ?? ["id"] };
        });
      if (remaining.length + created.length === 0) {
        errors.add(["input", "sellingPlansToDelete"], "Selling plans to delete can't result in a selling plan group with no selling plan.", "SELLING_PLAN_COUNT_LOWER_BOUND");
      }
      checkPlanSet(
        [...remaining, ...created.map((p) => ({ name: p.fields.name ?? "", options: p.fields.options ?? [], path: p.path }))],
        fields.options ?? group.options,
        errors,
      );
      if (errors.any) return failed;

      Object.assign(group, fields);
      for (const [id, update] of updates) {
        const plan = ctx.store.sellingPlans.get(id);
        if (plan) Object.assign(plan, update.fields);
      }
      for (const id of toDelete) ctx.store.sellingPlans.delete(id);
      group.planIds = group.planIds.filter((id) => !toDelete.has(id));
      createPlans(
        ctx,
        group,
        created.map((p) => p.fields),
      );
      return { sellingPlanGroup: group, deletedSellingPlanIds: [...toDelete].map((id) => gid("SellingPlan", id)), userErrors: [] };
    },

    sellingPlanGroupDelete: (_: unknown, args: { id: string }, ctx: Context) => {
      const errors = new UserErrors();
      const group = findGroup(ctx, args.id, errors);
      if (!group) return { deletedSellingPlanGroupId: null, userErrors: errors.list };
      for (const id of group.planIds) ctx.store.sellingPlans.delete(id);
      ctx.store.sellingPlanGroups.delete(group.id);
      return { deletedSellingPlanGroupId: gid("SellingPlanGroup", group.id), userErrors: [] };
    },

    sellingPlanGroupAddProductVariants: (_: unknown, args: { id: string; productVariantIds: string[] }, ctx: Context) => {
      const errors = new UserErrors();
      const group = findGroup(ctx, args.id, errors);
      const ids = existingIds(ctx, "ProductVariant", args.productVariantIds, ["productVariantIds"], errors);
      if (!group || errors.any) return { sellingPlanGroup: null, userErrors: errors.list };
      for (const id of ids) group.variantIds.add(id);
      return { sellingPlanGroup: group, userErrors: [] };
    },

    sellingPlanGroupRemoveProductVariants: (_: unknown, args: { id: string; productVariantIds: string[] }, ctx: Context) => {
      const errors = new UserErrors();
      const group = findGroup(ctx, args.id, errors);
      const ids = existingIds(ctx, "ProductVariant", args.productVariantIds, ["productVariantIds"], errors);
      if (!group || errors.any) return { removedProductVariantIds: null, userErrors: errors.list };
      // Removal is idempotent: every existing id given is out of the group afterwards, and listed.
      for (const id of ids) group.variantIds.delete(id);
      return { removedProductVariantIds: ids.map((id) => gid("ProductVariant", id)), userErrors: [] };
    },
  },
};
