import { readFileSync } from "node:fs";
import { type FragmentDefinitionNode, type GraphQLSchema, Kind, buildSchema, getOperationAST, getVariableValues, parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { actualCost, pageCostFactor, requestedCost } from "../src/platform/emulator/cost.ts";

/**
 * The emulator's query-cost rules against what a real Shopify store reported: each recorded query
 * is priced on Shopify's own schema (the vendored 2026-07 SDL, not the emulator's), so the rules
 * stay pure over a GraphQLSchema and hold for whichever executable schema the emulator serves.
 */

interface RecordedCost {
  source: string;
  query: string;
  variables: Record<string, unknown>;
  data: unknown;
  requestedQueryCost: number;
  actualQueryCost: number;
}

const shopify = buildSchema(readFileSync(new URL("../src/platform/admin-2026-07.graphql", import.meta.url), "utf8"));
const recorded = (JSON.parse(readFileSync(new URL("./fixtures/shopify-cost/recorded-costs.json", import.meta.url), "utf8")) as { cases: RecordedCost[] }).cases;

function costInput(schema: GraphQLSchema, query: string, variables: Record<string, unknown>) {
  const document = parse(query);
  expect(validate(schema, document)).toEqual([]);
  const operation = getOperationAST(document);
  if (!operation) throw new Error("no operation");
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  if (coerced.errors) throw new Error(coerced.errors.map((e) => e.message).join("; "));
  const fragments = document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  return { schema, operation, fragments, variables: coerced.coerced };
}

describe("query cost, as a real store reported it", () => {
  it("has recorded answers to check against", () => {
    expect(recorded.length).toBeGreaterThanOrEqual(30);
  });

  it.each(recorded.map((c) => [c.source, c] as const))("%s", (_source, c) => {
    const input = costInput(shopify, c.query, c.variables);
    const requested = requestedCost(input);
    expect(requested).toBe(c.requestedQueryCost);
    expect(actualCost(input, c.data, requested)).toBe(c.actualQueryCost);
  });
});

describe("query cost rules", () => {
  const price = (query: string, variables: Record<string, unknown> = {}) => requestedCost(costInput(shopify, query, variables));

  it("prices a page of n children as ⌊2·ln n⌋ of them, at least one", () => {
    expect([0, 1, 2, 3, 5, 10, 20, 50, 100, 250].map(pageCostFactor)).toEqual([0, 1, 1, 2, 3, 4, 5, 7, 9, 11]);
    expect(price("{ products(first: 250) { nodes { id title } } }")).toBe(2 + 11);
    expect(price("query($n: Int) { products(first: $n) { nodes { id } } }", { n: 10 })).toBe(2 + 4);
  });

  it("multiplies nested pages and leaves value objects free", () => {
    // products 2 + 4 × (Product 1 + variants (2 + 4 × (Variant 1 + inventoryItem 1 + unitCost MoneyV2 0))) + pageInfo 0
    const query = "{ products(first: 10) { nodes { id variants(first: 10) { nodes { id inventoryItem { unitCost { amount } } } } } pageInfo { hasNextPage } } }";
    expect(price(query)).toBe(2 + 4 * (1 + 2 + 4 * 2));
  });

  it("costs a mutation 10 plus what its payload's objects select below them", () => {
    const query = `mutation($id: ID!, $tags: [String!]!) { tagsAdd(id: $id, tags: $tags) { node { id } userErrors { field message } } }`;
    expect(price(query, { id: "gid://shopify/Product/1", tags: ["a"] })).toBe(10);
  });

  it("costs a count at the root 10", () => {
    expect(price("{ productsCount { count precision } }")).toBe(10);
  });

  it("never reports an actual cost above the requested one", () => {
    const input = costInput(shopify, "{ products(first: 3) { nodes { id } } }", {});
    const requested = requestedCost(input);
    const data = { products: { nodes: [{ id: "gid://shopify/Product/1" }, { id: "gid://shopify/Product/2" }, { id: "gid://shopify/Product/3" }] } };
    expect(actualCost(input, data, requested)).toBe(requested);
    expect(actualCost(input, { products: { nodes: [] } }, requested)).toBe(2);
  });
});
