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

  // Each expected answer is as a real store answered it (the conformance captures of
  // airhorns/shopify-draft-proxy), or, where none was recorded, a value of the real code enum.
  describe("user errors as the platform answers them", () => {
    const plan = (name: string, options: string[]) => ({
      name,
      options,
      category: "PRE_ORDER",
      billingPolicy: { fixed: { checkoutCharge: { type: "PERCENTAGE", value: { percentage: 100 } }, remainingBalanceChargeTrigger: "NO_REMAINING_BALANCE" } },
      deliveryPolicy: { fixed: { fulfillmentTrigger: "ASAP" } },
    });
    const CREATE = `mutation($input: SellingPlanGroupInput!) { sellingPlanGroupCreate(input: $input) { sellingPlanGroup { id sellingPlans(first: 5) { nodes { id } } } userErrors { field message code } } }`;
    const UPDATE = `mutation($id: ID!, $input: SellingPlanGroupInput!) { sellingPlanGroupUpdate(id: $id, input: $input) { sellingPlanGroup { id } userErrors { field message code } } }`;

    async function mutate(query: string, variables: Record<string, unknown>): Promise<Record<string, { userErrors: unknown[] } & Record<string, unknown>>> {
      const response = await fetch(emulator.graphqlUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "x-shopify-access-token": emulator.accessToken },
        body: JSON.stringify({ query, variables }),
      });
      const answer = (await response.json()) as { data?: Record<string, { userErrors: unknown[] }>; errors?: unknown };
      expect(answer.errors).toBeUndefined();
      return answer.data ?? {};
    }

    it("sellingPlanGroupCreate: no plans, a plan without policies, options unlike the group's", async () => {
      const none = await mutate(CREATE, { input: { name: "Preorder", merchantCode: "preorder", options: ["Payment"] } });
      expect(none.sellingPlanGroupCreate?.userErrors).toEqual([{ field: ["input"], message: "Selling plan groups must have at least 1 selling plan.", code: "SELLING_PLAN_COUNT_LOWER_BOUND" }]);
      const bare = await mutate(CREATE, { input: { name: "Preorder", merchantCode: "preorder", options: ["Payment"], sellingPlansToCreate: [{ name: "Bare", options: ["Bare"] }] } });
      expect(bare.sellingPlanGroupCreate?.userErrors).toEqual([
        { field: ["input", "sellingPlansToCreate", "0", "billingPolicy"], message: "Selling plans to create billing policy must be present.", code: "SELLING_PLAN_BILLING_POLICY_MISSING" },
        { field: ["input", "sellingPlansToCreate", "0", "deliveryPolicy"], message: "Selling plans to create delivery policy must be present.", code: "SELLING_PLAN_DELIVERY_POLICY_MISSING" },
      ]);
      const twoOptions = await mutate(CREATE, { input: { name: "Preorder", merchantCode: "preorder", options: ["Payment"], sellingPlansToCreate: [plan("Full", ["Full", "Extra"])] } });
      expect(twoOptions.sellingPlanGroupCreate?.userErrors).toEqual([
        { field: ["input", "sellingPlansToCreate", "0", "options"], message: expect.any(String) as string, code: "SELLING_PLAN_MISSING_OPTION2_LABEL_ON_PARENT_GROUP" },
      ]);
    });

    it("sellingPlanGroupUpdate: deleting the last plan, a plan without id, an unknown group", async () => {
      const created = await mutate(CREATE, { input: { name: "Preorder", merchantCode: "preorder", options: ["Payment"], sellingPlansToCreate: [plan("Full", ["Full"])] } });
      const group = created.sellingPlanGroupCreate?.sellingPlanGroup as { id: string; sellingPlans: { nodes: { id: string }[] } };
      const emptied = await mutate(UPDATE, { id: group.id, input: { sellingPlansToDelete: [group.sellingPlans.nodes[0]?.id] } });
      expect(emptied.sellingPlanGroupUpdate?.userErrors).toEqual([
        { field: ["input", "sellingPlansToDelete"], message: "Selling plans to delete can't result in a selling plan group with no selling plan.", code: "SELLING_PLAN_COUNT_LOWER_BOUND" },
      ]);
      const noId = await mutate(UPDATE, { id: group.id, input: { sellingPlansToUpdate: [{ name: "Renamed" }] } });
      expect(noId.sellingPlanGroupUpdate?.userErrors).toEqual([
        { field: ["input", "sellingPlansToUpdate", "0", "id"], message: "Id must be specificed to update a Selling Plan.", code: "PLAN_ID_MUST_BE_SPECIFIED_TO_UPDATE" },
      ]);
      const unknown = await mutate(UPDATE, { id: "gid://shopify/SellingPlanGroup/999999", input: { name: "x" } });
      expect(unknown.sellingPlanGroupUpdate?.userErrors).toEqual([{ field: ["id"], message: "Selling plan group does not exist.", code: "GROUP_DOES_NOT_EXIST" }]);
    });

    it("productVariantsBulkUpdate: a negative price, too many variants", async () => {
      const product = emulator.store.products[0];
      const variant = product ? emulator.store.variants[product.firstVariant] : undefined;
      const BULK = `mutation($productId: ID!, $variants: [ProductVariantsBulkInput!]!) { productVariantsBulkUpdate(productId: $productId, variants: $variants) { productVariants { id } userErrors { field message code } } }`;
      const productId = `gid://shopify/Product/${product?.id}`;
      const negative = await mutate(BULK, { productId, variants: [{ id: `gid://shopify/ProductVariant/${variant?.id}`, price: "-1.00" }] });
      expect(negative.productVariantsBulkUpdate?.userErrors).toEqual([{ field: ["variants", "0", "price"], message: "Price must be greater than or equal to 0", code: "GREATER_THAN_OR_EQUAL_TO" }]);
      const many = Array.from({ length: 2049 }, (_, i) => ({ id: `gid://shopify/ProductVariant/${i + 1}` }));
      const tooMany = await mutate(BULK, { productId, variants: many });
      expect(tooMany.productVariantsBulkUpdate?.userErrors).toEqual([expect.objectContaining({ field: ["variants"], code: "INVALID_INPUT" })]);
    });

    it("draftOrderCreate and draftOrderComplete", async () => {
      const CREATE_DRAFT = `mutation($input: DraftOrderInput!) { draftOrderCreate(input: $input) { draftOrder { id } userErrors { field message } } }`;
      const COMPLETE = `mutation($id: ID!, $gateway: ID) { draftOrderComplete(id: $id, paymentGatewayId: $gateway) { draftOrder { id } userErrors { field message } } }`;
      const variantId = `gid://shopify/ProductVariant/${emulator.store.variants[0]?.id}`;
      expect((await mutate(CREATE_DRAFT, { input: { lineItems: [] } })).draftOrderCreate?.userErrors).toEqual([{ field: null, message: "Add at least 1 product" }]);
      expect((await mutate(CREATE_DRAFT, { input: { lineItems: [{ variantId: "gid://shopify/ProductVariant/999999999", quantity: 1 }] } })).draftOrderCreate?.userErrors).toEqual([
        { field: null, message: "Product with ID 999999999 is no longer available." },
      ]);
      expect((await mutate(CREATE_DRAFT, { input: { lineItems: [{ variantId, quantity: 0 }] } })).draftOrderCreate?.userErrors).toEqual([
        { field: ["lineItems", "0", "quantity"], message: "Quantity must be greater than or equal to 1" },
      ]);
      expect((await mutate(CREATE_DRAFT, { input: { lineItems: [{ variantId, quantity: 1, priceOverride: { amount: "-2.00", currencyCode: "USD" } }] } })).draftOrderCreate?.userErrors).toEqual([
        { field: null, message: "Cannot send negative price for line_item" },
      ]);
      const draft = (await mutate(CREATE_DRAFT, { input: { lineItems: [{ variantId, quantity: 1 }] } })).draftOrderCreate?.draftOrder as { id: string };
      expect((await mutate(COMPLETE, { id: draft.id, gateway: "gid://shopify/PaymentGateway/99" })).draftOrderComplete?.userErrors).toEqual([{ field: null, message: "Invalid payment gateway" }]);
      expect((await mutate(COMPLETE, { id: draft.id })).draftOrderComplete?.userErrors).toEqual([]);
      expect((await mutate(COMPLETE, { id: draft.id })).draftOrderComplete?.userErrors).toEqual([{ field: null, message: "This order has been paid" }]);
    });
  });

  it("refuses to start with a resolver for a field the schema does not define", () => {
    const { schema } = loadSchema();
    expect(() => checkResolvers(schema, { Market: { countryCodes: () => [] } })).toThrow("emulator resolvers name Market.countryCodes, which the schema does not define");
    expect(() => checkResolvers(schema, { Query: { shop: () => null } })).toThrow("emulator resolvers name type Query, which the schema does not define");
  });
});
