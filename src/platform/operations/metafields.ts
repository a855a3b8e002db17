import { z } from "zod";
import type { PlatformRequester, RequestOptions } from "../client.ts";
import { expectNoUserErrors } from "../errors.ts";
import { chunk } from "./chunk.ts";
import { largestBatch } from "./cost.ts";
import { parseAnswer } from "./parse.ts";
import { userErrorsSchema } from "./user-errors.ts";

/**
 * Metafields: `metafieldsSet` and `metafieldsDelete`, 25 per call (the platform's limit for a set;
 * deletes are sent in the same batches), and reading one metafield of many owners. A namespace
 * `$app:<name>` is the app's own reserved one: only this app can write it, and the platform answers
 * it resolved (`app--<app id>--<name>`).
 */

/** The platform's limit on metafields in one metafieldsSet call. */
export const METAFIELDS_PER_CALL = 25;
/** The platform's limit on a json metafield's value, in bytes of UTF-8 (API 2026-04 on). */
export const JSON_METAFIELD_MAX_BYTES = 131_072;

export interface MetafieldsSetInput {
  ownerId: string;
  namespace: string;
  key: string;
  value: string;
  type: string;
  compareDigest?: string | null;
}

export interface MetafieldIdentifier {
  ownerId: string;
  namespace: string;
  key: string;
}

const METAFIELD_FIELDS = "id namespace key value type ownerType compareDigest updatedAt";

// Each document is exported: test/platform-client.test.ts validates every one against the schema.
export const METAFIELDS_SET = `mutation MetafieldsSet($metafields: [MetafieldsSetInput!]!) {
  metafieldsSet(metafields: $metafields) {
    metafields { id namespace key value type ownerType }
    userErrors { field message code elementIndex }
  }
}`;

// Its payload's userErrors are the platform's plain UserError (field and message, no code).
export const METAFIELDS_DELETE = `mutation MetafieldsDelete($metafields: [MetafieldIdentifierInput!]!) {
  metafieldsDelete(metafields: $metafields) {
    deletedMetafields { ownerId namespace key }
    userErrors { field message }
  }
}`;

export const OWNER_METAFIELDS = `query OwnerMetafields($ids: [ID!]!, $namespace: String!, $key: String!) {
  nodes(ids: $ids) {
    id
    ... on ProductVariant { metafield(namespace: $namespace, key: $key) { ${METAFIELD_FIELDS} } }
    ... on Product { metafield(namespace: $namespace, key: $key) { ${METAFIELD_FIELDS} } }
    ... on Customer { metafield(namespace: $namespace, key: $key) { ${METAFIELD_FIELDS} } }
  }
}`;

// The shop is a metafield owner as products and variants are; its id (the owner id of a write) is
// read here with the metafield, so a writer needs no id stored for it.
export const SHOP_METAFIELD = `query ShopMetafield($namespace: String!, $key: String!) {
  shop { id metafield(namespace: $namespace, key: $key) { ${METAFIELD_FIELDS} } }
}`;

const setMetafieldSchema = z.object({ id: z.string(), namespace: z.string(), key: z.string(), value: z.string(), type: z.string(), ownerType: z.string() });
export type SetMetafield = z.infer<typeof setMetafieldSchema>;

const metafieldSchema = setMetafieldSchema.extend({ compareDigest: z.string(), updatedAt: z.string() });
export type Metafield = z.infer<typeof metafieldSchema>;

const setAnswer = z.object({
  metafieldsSet: z.object({
    metafields: z.array(setMetafieldSchema).nullish(),
    userErrors: z.array(
      z.object({ field: z.array(z.string()).nullish(), message: z.string(), code: z.string().nullish(), elementIndex: z.number().int().nullish() }),
    ),
  }),
});
const identifierSchema = z.object({ ownerId: z.string(), namespace: z.string(), key: z.string() });
const deleteAnswer = z.object({
  metafieldsDelete: z.object({ deletedMetafields: z.array(identifierSchema.nullable()).nullish(), userErrors: userErrorsSchema }),
});
const shopAnswer = z.object({ shop: z.object({ id: z.string(), metafield: metafieldSchema.nullish() }) });
const ownersAnswer = z.object({
  nodes: z.array(z.object({ id: z.string(), metafield: metafieldSchema.nullish() }).nullable()),
});

/**
 * Sets metafields, 25 per call. Each call is atomic on the platform (one user error and none of
 * its 25 is set); a failing call throws, naming the input's index in the whole list, and the
 * calls before it stay done. Answers the metafields as set.
 */
export async function setMetafields(client: PlatformRequester, inputs: readonly MetafieldsSetInput[], options?: RequestOptions): Promise<SetMetafield[]> {
  const set: SetMetafield[] = [];
  let offset = 0;
  for (const part of chunk(inputs, METAFIELDS_PER_CALL)) {
    const data = await client.request<unknown>(METAFIELDS_SET, { metafields: part }, options);
    const payload = parseAnswer(setAnswer, data, "metafieldsSet").metafieldsSet;
    // The path (and elementIndex, when the platform gives one: it mostly answers null) counts from
    // this call's first input: shift it to the whole list's.
    const base = offset;
    const userErrors = payload.userErrors.map((e) => {
      const pathIndex = e.field?.[0] === "metafields" && e.field.length > 1 && /^\d+$/.test(e.field[1] ?? "") ? Number(e.field[1]) : null;
      const index = typeof e.elementIndex === "number" ? e.elementIndex + base : pathIndex === null ? null : pathIndex + base;
      const field = e.field && index !== null && pathIndex !== null ? ["metafields", String(index), ...e.field.slice(2)] : e.field;
      return { ...e, field };
    });
    expectNoUserErrors({ userErrors }, "metafieldsSet");
    set.push(...(payload.metafields ?? []));
    offset += part.length;
  }
  return set;
}

/**
 * Deletes metafields, 25 per call. One that does not exist is no error (the platform answers null
 * for it): answers the identifiers of those that were deleted.
 */
export async function deleteMetafields(client: PlatformRequester, identifiers: readonly MetafieldIdentifier[], options?: RequestOptions): Promise<MetafieldIdentifier[]> {
  const deleted: MetafieldIdentifier[] = [];
  for (const part of chunk(identifiers, METAFIELDS_PER_CALL)) {
    const data = await client.request<unknown>(METAFIELDS_DELETE, { metafields: part }, options);
    const payload = expectNoUserErrors(parseAnswer(deleteAnswer, data, "metafieldsDelete").metafieldsDelete, "metafieldsDelete");
    for (const entry of payload.deletedMetafields ?? []) if (entry) deleted.push(entry);
  }
  return deleted;
}

/**
 * One metafield (namespace and key) of each owner (products, variants or customers), as many owners per query
 * as the cost cap allows (each costs 2 points: the node and its metafield). Owners that do not
 * exist, and owners without it, map to null.
 */
export async function getOwnerMetafields(
  client: PlatformRequester,
  ownerIds: readonly string[],
  namespace: string,
  key: string,
  options?: RequestOptions,
): Promise<Map<string, Metafield | null>> {
  const found = new Map<string, Metafield | null>();
  for (const part of chunk([...new Set(ownerIds)], largestBatch(2))) {
    const data = await client.request<unknown>(OWNER_METAFIELDS, { ids: part, namespace, key }, options);
    const { nodes } = parseAnswer(ownersAnswer, data, "nodes");
    part.forEach((id, i) => found.set(id, nodes[i]?.metafield ?? null));
  }
  return found;
}

/** The shop's id (the owner id of a shop metafield) and its metafield of that namespace and key, or null. */
export async function getShopMetafield(
  client: PlatformRequester,
  namespace: string,
  key: string,
  options?: RequestOptions,
): Promise<{ shopId: string; metafield: Metafield | null }> {
  const data = await client.request<unknown>(SHOP_METAFIELD, { namespace, key }, options);
  const { shop } = parseAnswer(shopAnswer, data, "shop");
  return { shopId: shop.id, metafield: shop.metafield ?? null };
}
