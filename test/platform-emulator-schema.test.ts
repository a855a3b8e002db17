import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../src/platform/emulator/index.ts";
import { checkResolvers, loadSchema } from "../src/platform/emulator/schema.ts";

/** The emulator serves Shopify's own Admin schema (decision 0217), not a copy that could drift from it. */
describe("the emulator's schema", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: { products: 5, variantsPerProduct: 2 } });
  });
  afterAll(async () => {
    await emulator.close();
  });

  async function gql(query: string): Promise<{ data?: unknown; errors?: { message: string; path?: string[]; extensions?: { code?: string } }[] }> {
    const response = await fetch(emulator.graphqlUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "x-shopify-access-token": emulator.accessToken },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };
  }

  it("is Shopify's vendored schema, built once and shared by every emulator of the process", () => {
    const { schema } = loadSchema();
    expect(schema.getQueryType()?.name).toBe("QueryRoot");
    expect(Object.keys(schema.getTypeMap()).filter((name) => !name.startsWith("__")).length).toBeGreaterThan(3000);
    expect(loadSchema()).toBe(loadSchema());
  });

  it("answers a field it does not emulate with an error naming it, not a null", async () => {
    const answer = await gql(`{ product(id: "gid://shopify/Product/${emulator.store.products[0]?.id}") { id title descriptionHtml } }`);
    expect(answer.errors).toEqual([expect.objectContaining({ message: "Field Product.descriptionHtml is not emulated", path: ["product", "descriptionHtml"], extensions: { code: "NOT_EMULATED" } })]);
  });

  it("answers enums as the schema's values and non-null strings as strings", async () => {
    const answer = await gql(`{
      products(first: 1) { nodes { status vendor productType } }
      shop { currencyCode }
    }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ products: { nodes: [{ status: "ACTIVE", vendor: expect.any(String) as string, productType: expect.any(String) as string }] }, shop: { currencyCode: "USD" } });
  });

  it("refuses to start with a resolver for a field the schema does not define", () => {
    const { schema } = loadSchema();
    expect(() => checkResolvers(schema, { Market: { countryCodes: () => [] } })).toThrow("emulator resolvers name Market.countryCodes, which the schema does not define");
    expect(() => checkResolvers(schema, { Query: { shop: () => null } })).toThrow("emulator resolvers name type Query, which the schema does not define");
  });
});
