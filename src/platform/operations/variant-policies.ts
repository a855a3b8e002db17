import { z } from "zod";
import type { PlatformRequester, RequestOptions } from "../client.ts";
import { expectNoUserErrors } from "../errors.ts";
import { chunk } from "./chunk.ts";
import { largestBatch } from "./cost.ts";
import { parseAnswer } from "./parse.ts";
import { userErrorsSchema } from "./user-errors.ts";

/**
 * A variant's inventory policy: DENY stops selling at zero, CONTINUE sells past it (what a
 * preorder offer's continue_selling needs). Read through `nodes(ids:)`, written with
 * `productVariantsBulkUpdate`, which takes the variants of one product per call.
 */

export type InventoryPolicy = "DENY" | "CONTINUE";

// Each document is exported: test/platform-client.test.ts validates every one against the schema.
export const VARIANT_POLICIES = `query VariantPolicies($ids: [ID!]!) {
  nodes(ids: $ids) { id ... on ProductVariant { inventoryPolicy } }
}`;

export const PRODUCT_VARIANTS_BULK_UPDATE = `mutation ProductVariantsBulkUpdate($productId: ID!, $variants: [ProductVariantsBulkInput!]!) {
  productVariantsBulkUpdate(productId: $productId, variants: $variants) {
    productVariants { id inventoryPolicy }
    userErrors { field message code }
  }
}`;

const policiesAnswer = z.object({ nodes: z.array(z.object({ id: z.string(), inventoryPolicy: z.string().optional() }).nullable()) });
const updateAnswer = z.object({
  productVariantsBulkUpdate: z.object({
    productVariants: z.array(z.object({ id: z.string(), inventoryPolicy: z.string() })).nullish(),
    userErrors: userErrorsSchema,
  }),
});

/** Each variant's policy as the platform has it now; one it no longer has is left out. */
export async function getVariantPolicies(client: PlatformRequester, variantIds: readonly string[], options?: RequestOptions): Promise<Map<string, InventoryPolicy>> {
  const found = new Map<string, InventoryPolicy>();
  for (const part of chunk([...new Set(variantIds)], largestBatch(1))) {
    const data = await client.request<unknown>(VARIANT_POLICIES, { ids: part }, options);
    for (const node of parseAnswer(policiesAnswer, data, "nodes").nodes) {
      if (node?.inventoryPolicy === "DENY" || node?.inventoryPolicy === "CONTINUE") found.set(node.id, node.inventoryPolicy);
    }
  }
  return found;
}

/**
 * Sets the policy of variants of one product, 250 per call (the platform's array limit). A user
 * error throws (the call changes nothing then); answers each variant's policy as set.
 */
export async function setVariantPolicies(
  client: PlatformRequester,
  productId: string,
  variants: readonly { id: string; inventoryPolicy: InventoryPolicy }[],
  options?: RequestOptions,
): Promise<{ id: string; inventoryPolicy: string }[]> {
  const set: { id: string; inventoryPolicy: string }[] = [];
  for (const part of chunk(variants)) {
    const data = await client.request<unknown>(PRODUCT_VARIANTS_BULK_UPDATE, { productId, variants: part }, options);
    const payload = expectNoUserErrors(parseAnswer(updateAnswer, data, "productVariantsBulkUpdate").productVariantsBulkUpdate, "productVariantsBulkUpdate");
    set.push(...(payload.productVariants ?? []));
  }
  return set;
}
