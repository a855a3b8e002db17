import { z } from "zod";
import type { PlatformRequester, RequestOptions } from "../client.ts";
import { expectNoUserErrors, PlatformError } from "../errors.ts";
import { connectionSchema, paginate } from "../paginate.ts";
import { chunk, unique } from "./chunk.ts";
import { parseAnswer } from "./parse.ts";
import type { SellingPlanGroupInput } from "./selling-plan-types.ts";
import { userErrorsSchema } from "./user-errors.ts";

export type * from "./selling-plan-types.ts";

/**
 * A preorder group holds a plan per payment option (decision 0212); 20 leaves room without making
 * the query dear. The billing policy's trigger tells which option a plan charges by.
 */
const GROUP_FIELDS = `id name merchantCode options productVariantsCount { count }
  sellingPlans(first: 20) { nodes { id name category options billingPolicy { ... on SellingPlanFixedBillingPolicy { remainingBalanceChargeTrigger } } } }`;

export const sellingPlanGroupSchema = z.object({
  id: z.string(),
  name: z.string(),
  merchantCode: z.string(),
  options: z.array(z.string()),
  // A Count; null (the platform answers no count) reads as none.
  productVariantsCount: z
    .object({ count: z.number().int() })
    .nullable()
    .transform((count) => count?.count ?? 0),
  sellingPlans: z.object({
    nodes: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        category: z.string().nullable(),
        options: z.array(z.string()).optional(),
        // a recurring (subscription) policy answers no fields of the fixed one: {}
        billingPolicy: z.object({ remainingBalanceChargeTrigger: z.string().optional() }).nullish(),
      }),
    ),
  }),
});
export type SellingPlanGroup = z.output<typeof sellingPlanGroupSchema>;

// Each document is exported: test/platform-client.test.ts validates every one against the schema.
export const CREATE_SELLING_PLAN_GROUP = `mutation SellingPlanGroupCreate($input: SellingPlanGroupInput!, $resources: SellingPlanGroupResourceInput) {
  sellingPlanGroupCreate(input: $input, resources: $resources) {
    sellingPlanGroup { ${GROUP_FIELDS} }
    userErrors { field message code }
  }
}`;

export const UPDATE_SELLING_PLAN_GROUP = `mutation SellingPlanGroupUpdate($id: ID!, $input: SellingPlanGroupInput!) {
  sellingPlanGroupUpdate(id: $id, input: $input) {
    sellingPlanGroup { ${GROUP_FIELDS} }
    deletedSellingPlanIds
    userErrors { field message code }
  }
}`;

export const DELETE_SELLING_PLAN_GROUP = `mutation SellingPlanGroupDelete($id: ID!) {
  sellingPlanGroupDelete(id: $id) { deletedSellingPlanGroupId userErrors { field message code } }
}`;

export const ADD_SELLING_PLAN_GROUP_VARIANTS = `mutation SellingPlanGroupAddProductVariants($id: ID!, $productVariantIds: [ID!]!) {
  sellingPlanGroupAddProductVariants(id: $id, productVariantIds: $productVariantIds) {
    sellingPlanGroup { ${GROUP_FIELDS} }
    userErrors { field message code }
  }
}`;

export const REMOVE_SELLING_PLAN_GROUP_VARIANTS = `mutation SellingPlanGroupRemoveProductVariants($id: ID!, $productVariantIds: [ID!]!) {
  sellingPlanGroupRemoveProductVariants(id: $id, productVariantIds: $productVariantIds) {
    removedProductVariantIds
    userErrors { field message code }
  }
}`;

export const GET_SELLING_PLAN_GROUP = `query SellingPlanGroup($id: ID!) { sellingPlanGroup(id: $id) { ${GROUP_FIELDS} } }`;

export const SELLING_PLAN_GROUP_VARIANTS = `query SellingPlanGroupVariants($id: ID!, $first: Int, $after: String) {
  sellingPlanGroup(id: $id) {
    productVariants(first: $first, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } }
  }
}`;

const createAnswer = z.object({
  sellingPlanGroupCreate: z.object({ sellingPlanGroup: sellingPlanGroupSchema.nullable(), userErrors: userErrorsSchema }),
});
const updateAnswer = z.object({
  sellingPlanGroupUpdate: z.object({
    sellingPlanGroup: sellingPlanGroupSchema.nullable(),
    deletedSellingPlanIds: z.array(z.string()).nullish(),
    userErrors: userErrorsSchema,
  }),
});
const deleteAnswer = z.object({
  sellingPlanGroupDelete: z.object({ deletedSellingPlanGroupId: z.string().nullable(), userErrors: userErrorsSchema }),
});
const addAnswer = z.object({
  sellingPlanGroupAddProductVariants: z.object({ sellingPlanGroup: sellingPlanGroupSchema.nullable(), userErrors: userErrorsSchema }),
});
const removeAnswer = z.object({
  sellingPlanGroupRemoveProductVariants: z.object({
    removedProductVariantIds: z.array(z.string()).nullish(),
    userErrors: userErrorsSchema,
  }),
});
const getAnswer = z.object({ sellingPlanGroup: sellingPlanGroupSchema.nullable() });
const variantPage = connectionSchema(z.object({ id: z.string() }));
const groupVariantsAnswer = z.object({ sellingPlanGroup: z.object({ productVariants: variantPage }).nullable() });

/**
 * Creates a group with its first 250 variants (the platform's array limit), then adds the rest
 * 250 at a time. Should adding fail part way, the group is deleted again before the error is
 * rethrown: the caller's retry then starts clean instead of leaving an orphan group behind,
 * which could not be found again (groups cannot be looked up by merchant code).
 */
export async function createSellingPlanGroup(
  client: PlatformRequester,
  input: SellingPlanGroupInput,
  variantIds: readonly string[] = [],
  options?: RequestOptions,
): Promise<SellingPlanGroup> {
  const [firstChunk = [], ...rest] = chunk(unique(variantIds));
  const data = await client.request<unknown>(CREATE_SELLING_PLAN_GROUP, { input, resources: { productVariantIds: firstChunk } }, options);
  const payload = expectNoUserErrors(parseAnswer(createAnswer, data, "sellingPlanGroupCreate").sellingPlanGroupCreate, "sellingPlanGroupCreate");
  const created = required(payload.sellingPlanGroup, "sellingPlanGroupCreate");
  if (rest.length === 0) return created;
  try {
    return (await addVariantsToSellingPlanGroup(client, created.id, rest.flat(), options)) ?? created;
  } catch (error) {
    // Without the caller's signal: an abort is a reason to stop adding, not to leave the orphan.
    await deleteSellingPlanGroup(client, created.id).catch(() => undefined);
    throw error;
  }
}

/** Updates the group's fields and plans (create, update, delete plans in one input). */
export async function updateSellingPlanGroup(
  client: PlatformRequester,
  id: string,
  input: SellingPlanGroupInput,
  options?: RequestOptions,
): Promise<{ group: SellingPlanGroup; deletedSellingPlanIds: string[] }> {
  const data = await client.request<unknown>(UPDATE_SELLING_PLAN_GROUP, { id, input }, options);
  const payload = expectNoUserErrors(parseAnswer(updateAnswer, data, "sellingPlanGroupUpdate").sellingPlanGroupUpdate, "sellingPlanGroupUpdate");
  return {
    group: required(payload.sellingPlanGroup, "sellingPlanGroupUpdate"),
    deletedSellingPlanIds: payload.deletedSellingPlanIds ?? [],
  };
}

/** Deletes the group (and its plans); answers the deleted group's id. */
export async function deleteSellingPlanGroup(client: PlatformRequester, id: string, options?: RequestOptions): Promise<string> {
  const data = await client.request<unknown>(DELETE_SELLING_PLAN_GROUP, { id }, options);
  const payload = expectNoUserErrors(parseAnswer(deleteAnswer, data, "sellingPlanGroupDelete").sellingPlanGroupDelete, "sellingPlanGroupDelete");
  return payload.deletedSellingPlanGroupId ?? id;
}

/** Adds variants 250 per call; answers the group as of the last call (undefined when there was nothing to add). */
export async function addVariantsToSellingPlanGroup(
  client: PlatformRequester,
  id: string,
  variantIds: readonly string[],
  options?: RequestOptions,
): Promise<SellingPlanGroup | undefined> {
  let group: SellingPlanGroup | undefined;
  for (const part of chunk(unique(variantIds))) {
    const data = await client.request<unknown>(ADD_SELLING_PLAN_GROUP_VARIANTS, { id, productVariantIds: part }, options);
    const name = "sellingPlanGroupAddProductVariants";
    const payload = expectNoUserErrors(parseAnswer(addAnswer, data, name).sellingPlanGroupAddProductVariants, name);
    group = payload.sellingPlanGroup ?? group;
  }
  return group;
}

/** Removes variants 250 per call; answers the ids the platform reports removed. */
export async function removeVariantsFromSellingPlanGroup(
  client: PlatformRequester,
  id: string,
  variantIds: readonly string[],
  options?: RequestOptions,
): Promise<string[]> {
  const removed: string[] = [];
  for (const part of chunk(unique(variantIds))) {
    const data = await client.request<unknown>(REMOVE_SELLING_PLAN_GROUP_VARIANTS, { id, productVariantIds: part }, options);
    const name = "sellingPlanGroupRemoveProductVariants";
    const payload = expectNoUserErrors(parseAnswer(removeAnswer, data, name).sellingPlanGroupRemoveProductVariants, name);
    removed.push(...(payload.removedProductVariantIds ?? []));
  }
  return removed;
}

/** The group, or null when the platform has none with that id. */
export async function getSellingPlanGroup(client: PlatformRequester, id: string, options?: RequestOptions): Promise<SellingPlanGroup | null> {
  const data = await client.request<unknown>(GET_SELLING_PLAN_GROUP, { id }, options);
  return parseAnswer(getAnswer, data, "sellingPlanGroup").sellingPlanGroup;
}

/** The group's member variant ids, page by page (none when the group does not exist). */
export function sellingPlanGroupVariantIds(
  client: PlatformRequester,
  id: string,
  pageSize?: number,
  options?: RequestOptions,
): AsyncGenerator<string[], void, undefined> {
  return mapPages(
    paginate(
      client,
      SELLING_PLAN_GROUP_VARIANTS,
      { id },
      (data) => parseAnswer(groupVariantsAnswer, data, "sellingPlanGroup").sellingPlanGroup?.productVariants ?? emptyPage,
      pageSize,
      options,
    ),
    (node) => node.id,
  );
}

const emptyPage = { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } };

async function* mapPages<A, B>(pages: AsyncIterable<A[]>, map: (item: A) => B): AsyncGenerator<B[], void, undefined> {
  for await (const page of pages) yield page.map(map);
}

/** A payload without userErrors should carry its object; if it does not, say which mutation broke the contract. */
function required<T>(value: T | null, operation: string): T {
  if (value === null) {
    throw new PlatformError(`${operation}: answered neither the selling plan group nor user errors`, { kind: "graphql", attempts: 0 });
  }
  return value;
}
