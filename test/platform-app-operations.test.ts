import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlatformClient } from "../src/platform/client.ts";
import { PlatformError } from "../src/platform/errors.ts";
import { type Emulator, startEmulator } from "../src/platform/emulator/index.ts";
import { getAccessScopes, getTranslations, sendFlowTrigger } from "../src/platform/operations/app.ts";
import { getVariantPolicies, PRODUCT_VARIANTS_BULK_UPDATE, setVariantPolicies } from "../src/platform/operations/variant-policies.ts";

let emulator: Emulator;
let client: PlatformClient;

beforeAll(async () => {
  emulator = await startEmulator({ seed: { products: 4, variantsPerProduct: 3 } });
  client = new PlatformClient({ graphqlUrl: emulator.graphqlUrl, accessToken: emulator.accessToken, minRetryDelayMs: 1, maxRetryDelayMs: 20 });
});
afterAll(async () => emulator.close());

const variantGid = (index: number) => `gid://shopify/ProductVariant/${emulator.store.variants[index]?.id ?? 0}`;
const productGid = (index: number) => `gid://shopify/Product/${emulator.store.products[index]?.id ?? 0}`;

async function raw(query: string, variables: Record<string, unknown>) {
  const response = await fetch(emulator.graphqlUrl, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-access-token": emulator.accessToken },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: Record<string, { userErrors: { field: string[]; code: string }[] } | null>; errors?: { message: string; extensions?: { code?: string } }[]; extensions: { cost: { requestedQueryCost: number } } };
}

describe("productVariantsBulkUpdate (inventory policy)", () => {
  it("sets CONTINUE and back to DENY on a product's variants, and the read sees it", async () => {
    expect(await getVariantPolicies(client, [variantGid(0), variantGid(1)])).toEqual(new Map([[variantGid(0), "DENY"], [variantGid(1), "DENY"]]));
    const set = await setVariantPolicies(client, productGid(0), [{ id: variantGid(0), inventoryPolicy: "CONTINUE" }]);
    expect(set).toEqual([{ id: variantGid(0), inventoryPolicy: "CONTINUE" }]);
    expect(emulator.store.variants[0]?.inventoryPolicy).toBe("CONTINUE");
    expect((await getVariantPolicies(client, [variantGid(0), variantGid(1)])).get(variantGid(0))).toBe("CONTINUE");
    await setVariantPolicies(client, productGid(0), [{ id: variantGid(0), inventoryPolicy: "DENY" }]);
    expect(emulator.store.variants[0]?.inventoryPolicy).toBe("DENY");
  });

  it("refuses a variant of another product and an unknown product, changing nothing (user error codes as the platform's)", async () => {
    const error = await setVariantPolicies(client, productGid(0), [
      { id: variantGid(1), inventoryPolicy: "CONTINUE" },
      { id: variantGid(3), inventoryPolicy: "CONTINUE" },
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).kind).toBe("user_errors");
    expect(emulator.store.variants[1]?.inventoryPolicy).toBe("DENY");
    const answer = await raw(PRODUCT_VARIANTS_BULK_UPDATE, { productId: productGid(0), variants: [{ id: variantGid(3), inventoryPolicy: "CONTINUE" }, { inventoryPolicy: "CONTINUE" }] });
    expect(answer.data?.productVariantsBulkUpdate?.userErrors).toEqual([
      { field: ["variants", "0", "id"], message: "Product variant must be for this product", code: "MUST_BE_FOR_THIS_PRODUCT" },
      { field: ["variants", "1", "id"], message: "Product variant is missing ID attribute", code: "PRODUCT_VARIANT_ID_MISSING" },
    ]);
    const unknown = await raw(PRODUCT_VARIANTS_BULK_UPDATE, { productId: "gid://shopify/Product/1", variants: [{ id: variantGid(0), inventoryPolicy: "CONTINUE" }] });
    expect(unknown.data?.productVariantsBulkUpdate?.userErrors[0]?.code).toBe("PRODUCT_DOES_NOT_EXIST");
    // A mutation: 10 points; the objects of its payload are free (emulator/cost.ts).
    expect(unknown.extensions.cost.requestedQueryCost).toBe(10);
  });
});

describe("flowTriggerReceive", () => {
  it("records a trigger; refuses a bad handle and a payload over 50 KB (plain user errors)", async () => {
    await sendFlowTrigger(client, "preorder-order-created", { order_id: 5, offer: "Spring" });
    expect(emulator.app.flowTriggers.map((t) => [t.handle, t.payload])).toEqual([["preorder-order-created", { order_id: 5, offer: "Spring" }]]);
    const bad = await sendFlowTrigger(client, "not a handle!", { a: 1 }).catch((e: unknown) => e);
    expect((bad as PlatformError).kind).toBe("user_errors");
    // The client refuses an oversized payload before spending a call; the emulator refuses it too.
    await expect(sendFlowTrigger(client, "big", { blob: "x".repeat(50_001) })).rejects.toThrow(/above the platform's 50000/);
    const answer = await raw("mutation F($handle: String, $payload: JSON) { flowTriggerReceive(handle: $handle, payload: $payload) { userErrors { field message } } }", {
      handle: "big",
      payload: { blob: "x".repeat(50_001) },
    });
    expect(answer.data?.flowTriggerReceive?.userErrors).toEqual([{ field: ["payload"], message: "Payload is too large (maximum is 50 KB)" }]);
    expect(emulator.app.flowTriggers).toHaveLength(1);
  });
});

describe("access scopes and translations", () => {
  it("translatableResource is denied until read_translations is granted; then answers the product's translations by locale", async () => {
    expect(await getAccessScopes(client)).not.toContain("read_translations");
    const denied = await getTranslations(client, productGid(1), "fr").catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(PlatformError);
    expect((denied as PlatformError).message).toMatch(/ACCESS_DENIED/);

    const granted = await fetch(`${emulator.origin}/admin/access_scopes`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ grant: ["read_translations"] }) });
    expect(granted.status).toBe(200);
    expect(await getAccessScopes(client)).toContain("read_translations");
    const put = await fetch(`${emulator.origin}/admin/products/${emulator.store.products[1]?.id}/translations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ locale: "fr", values: { title: "Chemise" } }),
    });
    expect(put.status).toBe(200);
    expect(await getTranslations(client, productGid(1), "fr")).toEqual(new Map([["title", "Chemise"]]));
    expect(await getTranslations(client, productGid(1), "de")).toEqual(new Map());
    expect(await getTranslations(client, "gid://shopify/Product/1", "fr")).toBeNull();

    emulator.app.revoke(["read_translations"]);
    expect(await getAccessScopes(client)).not.toContain("read_translations");
  });
});
