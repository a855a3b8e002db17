import { createHmac, timingSafeEqual } from "node:crypto";
import { type IncomingHttpHeaders, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, type EmulatorOptions, startEmulator } from "../src/platform/emulator/index.ts";
import { waitFor } from "./helpers/wait.ts";

const SECRET = "emulator-test-secret-0123456789";

interface Answer {
  status: number;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: { code?: string } }[] | string;
    extensions?: { cost: Cost };
  };
  text: string;
}

interface Cost {
  requestedQueryCost: number;
  actualQueryCost: number | null;
  throttleStatus: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number };
}

interface UserError {
  field: string[] | null;
  message: string;
  code: string | null;
}

interface PageOf<T> {
  nodes: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const started: Emulator[] = [];

async function emulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const e = await startEmulator(options);
  started.push(e);
  return e;
}

async function gql(e: Emulator, query: string, variables: Record<string, unknown> = {}, token: string | null = e.accessToken): Promise<Answer> {
  const response = await fetch(e.graphqlUrl, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token === null ? {} : { "x-shopify-access-token": token }) },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  let body: Answer["body"] = {};
  try {
    body = JSON.parse(text) as Answer["body"];
  } catch {
    // The injected 502/503 answers are text.
  }
  return { status: response.status, body, text };
}

/** The answer's data, failing the test on any GraphQL error. */
async function data<T>(e: Emulator, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const answer = await gql(e, query, variables);
  expect(answer.body.errors, answer.text).toBeUndefined();
  return answer.body.data as T;
}

function code(answer: Answer): string | undefined {
  const errors = answer.body.errors;
  return Array.isArray(errors) ? errors[0]?.extensions?.code : undefined;
}

async function admin<T>(e: Emulator, method: "GET" | "POST", path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${e.origin}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

/** A local webhook endpoint recording each request; `failFirst` answers 500 to that many requests first. */
async function receiver(failFirst = 0): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  let failures = failFirst;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ path: request.url ?? "", headers: request.headers, raw: Buffer.concat(chunks) });
      if (failures > 0) {
        failures--;
        response.writeHead(500).end("try again");
      } else {
        response.writeHead(200).end("ok");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhooks/platform`, received, server };
}

function validSignature(raw: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== "string") return false;
  const expected = createHmac("sha256", SECRET).update(raw).digest();
  const given = Buffer.from(header, "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

afterAll(async () => {
  await Promise.all(started.map((e) => e.close()));
});

const FIRST_PRODUCTS = `{
  products(first: 5) { nodes { id title handle tags status vendor productType updatedAt
    variants(first: 5) { nodes { id title sku price inventoryPolicy updatedAt } } } }
}`;

describe("seeded catalog", () => {
  it("is the same for the same options and differs for another seed", async () => {
    const [a, b, c] = await Promise.all([
      emulator({ seed: { products: 30, seed: 7 } }),
      emulator({ seed: { products: 30, seed: 7 } }),
      emulator({ seed: { products: 30, seed: 8 } }),
    ]);
    const [first, second, other] = await Promise.all([data(a, FIRST_PRODUCTS), data(b, FIRST_PRODUCTS), data(c, FIRST_PRODUCTS)]);
    expect(second).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it("has locations (the last inactive), a primary market, collections and excluded products", async () => {
    const e = await emulator();
    const answer = await data<{
      active: PageOf<{ id: string; isActive: boolean }>;
      all: PageOf<{ id: string; isActive: boolean }>;
      backupRegion: { code: string };
      markets: PageOf<{ status: string; conditions: { regionsCondition: { regions: { nodes: { code: string }[] } }; locationsCondition: { locations: { nodes: { id: string }[] } } | null } }>;
      collections: PageOf<{ id: string }>;
      excluded: PageOf<{ id: string; tags: string[] }>;
    }>(e, `{
      active: locations(first: 10) { nodes { id isActive } pageInfo { hasNextPage endCursor } }
      all: locations(first: 10, includeInactive: true) { nodes { id isActive } pageInfo { hasNextPage endCursor } }
      backupRegion { ... on MarketRegionCountry { code } }
      markets(first: 10) {
        nodes { status conditions { regionsCondition { regions(first: 20) { nodes { ... on MarketRegionCountry { code } } } } locationsCondition { locations(first: 10) { nodes { id } } } } }
        pageInfo { hasNextPage endCursor }
      }
      collections(first: 50) { nodes { id } pageInfo { hasNextPage endCursor } }
      excluded: products(first: 250, query: "tag:preorder-exclude") { nodes { id tags } pageInfo { hasNextPage endCursor } }
    }`);
    expect(answer.all.nodes.map((l) => l.isActive)).toEqual([true, true, false]);
    expect(answer.active.nodes).toHaveLength(2);
    // The primary market is the one holding the backup region (Market.primary is deprecated).
    const countries = answer.markets.nodes.map((m) => m.conditions.regionsCondition.regions.nodes.map((r) => r.code));
    expect(countries.map((c) => c.includes(answer.backupRegion.code))).toEqual([true, false]);
    expect(answer.markets.nodes.map((m) => m.status)).toEqual(["ACTIVE", "ACTIVE"]);
    expect(answer.markets.nodes[0]?.conditions.locationsCondition?.locations.nodes).toHaveLength(2);
    expect(answer.collections.nodes).toHaveLength(10);
    expect(answer.excluded.nodes.length).toBeGreaterThan(0);
    expect(answer.excluded.nodes.every((p) => p.tags.includes("preorder-exclude"))).toBe(true);
  });
});

describe("paging", () => {
  let e: Emulator;
  beforeAll(async () => {
    e = await emulator({ seed: { products: 120, variantsPerProduct: 4 }, throttle: { maximumAvailable: 100_000, restoreRate: 10_000 } });
  });

  async function pageAll(field: "products" | "productVariants", query?: string): Promise<string[]> {
    const ids: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: Record<string, PageOf<{ id: string }>> = await data(
        e,
        `query($after: String, $query: String) { ${field}(first: 50, after: $after, query: $query) { nodes { id } pageInfo { hasNextPage endCursor } } }`,
        { after, query: query ?? null },
      );
      const connection = page[field];
      if (!connection) throw new Error(`no ${field}`);
      ids.push(...connection.nodes.map((n) => n.id));
      if (!connection.pageInfo.hasNextPage) return ids;
      after = connection.pageInfo.endCursor;
    }
  }

  it("pages products and variants to the end, every id once, in ascending id order", async () => {
    const products = await pageAll("products");
    const variants = await pageAll("productVariants");
    expect(new Set(products).size).toBe(120);
    expect(new Set(variants).size).toBe(120 * 4);
    const numbers = variants.map((id) => Number(id.split("/").pop()));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  });

  it("filters by updated_at:> and id:>, and sorts by UPDATED_AT", async () => {
    const since = Math.max(...e.store.variants.map((v) => v.updatedAt));
    const [x, y] = [e.store.variants[17], e.store.variants[3]];
    if (!x || !y) throw new Error("seed too small");
    e.store.touchVariant(x);
    e.store.touchVariant(y);
    const changed = await pageAll("productVariants", `updated_at:>'${new Date(since).toISOString()}'`);
    expect(changed.sort()).toEqual([`gid://shopify/ProductVariant/${y.id}`, `gid://shopify/ProductVariant/${x.id}`].sort());

    const tail = await pageAll("productVariants", `id:>${e.store.variants.at(-3)?.id}`);
    expect(tail).toHaveLength(2);

    // Variants have no UPDATED_AT sort key on the platform (ProductVariantSortKeys); products do.
    const [p, q] = [e.store.products[9], e.store.products[2]];
    if (!p || !q) throw new Error("seed too small");
    e.store.touchProduct(p);
    e.store.touchProduct(q);
    const byUpdated = await data<{ products: PageOf<{ id: string }> }>(
      e,
      `{ products(first: 2, sortKey: UPDATED_AT, reverse: true) { nodes { id } pageInfo { hasNextPage endCursor } } }`,
    );
    // Touched last, so first in reverse update order.
    expect(byUpdated.products.nodes.map((n) => n.id)).toEqual([`gid://shopify/Product/${q.id}`, `gid://shopify/Product/${p.id}`]);
  });

  it("filters a location's inventory levels by updated_at", async () => {
    const location = e.store.activeLocations()[0];
    if (!location?.levels) throw new Error("no active location");
    const since = new Date(Math.max(...location.levels.updatedAt)).toISOString();
    const set = await admin<{ inventory_level: { inventory_item_id: number } }>(e, "POST", "/admin/inventory", {
      variant_id: e.store.variants[42]?.id,
      available: 7,
    });
    expect(set.status).toBe(200);
    const levels = await data<{ location: { inventoryLevels: PageOf<{ item: { id: string }; quantities: { quantity: number }[] }> } }>(
      e,
      `query($id: ID!, $q: String) { location(id: $id) { inventoryLevels(first: 250, query: $q) {
        nodes { item { id } quantities(names: ["available"]) { quantity } } pageInfo { hasNextPage endCursor } } } }`,
      { id: `gid://shopify/Location/${location.id}`, q: `updated_at:>'${since}'` },
    );
    expect(levels.location.inventoryLevels.nodes).toEqual([
      { item: { id: `gid://shopify/InventoryItem/${set.body.inventory_level.inventory_item_id}` }, quantities: [{ quantity: 7 }] },
    ]);
  });

  it("resolves node and nodes by gid, and refuses what is no gid", async () => {
    const variant = e.store.variants[0];
    const answer = await data<{ node: { __typename: string; sku: string }; nodes: ({ id: string } | null)[] }>(
      e,
      `query($id: ID!, $ids: [ID!]!) { node(id: $id) { __typename ... on ProductVariant { sku } } nodes(ids: $ids) { id } }`,
      { id: `gid://shopify/ProductVariant/${variant?.id}`, ids: [`gid://shopify/Product/${e.store.products[0]?.id}`, "gid://shopify/Product/1"] },
    );
    expect(answer.node).toEqual({ __typename: "ProductVariant", sku: variant?.sku });
    expect(answer.nodes).toEqual([{ id: `gid://shopify/Product/${e.store.products[0]?.id}` }, null]);
    const bad = await gql(e, `{ node(id: "42") { id } }`);
    expect(code(bad)).toBe("INVALID_GLOBAL_ID");
  });

  it("answers validation, parse and variable errors as Shopify does, refused before they are priced", async () => {
    // Recorded from a real store: fixtures/conformance/.../graphql-base-validation-unhappy-paths.json of airhorns/shopify-draft-proxy.
    const answer = await gql(e, `query Probe { products(first: 1) { nodes { id nope } } }`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      errors: [
        {
          message: "Field 'nope' doesn't exist on type 'Product'",
          locations: [{ line: 1, column: 47 }],
          path: ["query Probe", "products", "nodes", "nope"],
          extensions: { code: "undefinedField", typeName: "Product", fieldName: "nope" },
        },
      ],
    });
    const noSelection = await gql(e, `query Probe { shop }`);
    expect(noSelection.body.errors).toEqual([
      {
        message: "Field must have selections (field 'shop' returns Shop but has no selections. Did you mean 'shop { ... }'?)",
        locations: [{ line: 1, column: 15 }],
        path: ["query Probe", "shop"],
        extensions: { code: "selectionMismatch", nodeName: "field 'shop'", typeName: "Shop" },
      },
    ]);
    const unparsable = await gql(e, `query Probe {\n  shop {\n    id\n`);
    expect(unparsable.body.extensions).toBeUndefined();
    expect(unparsable.body.errors).toMatchObject([{ locations: [{ line: 4, column: 1 }], extensions: { code: "PARSE_ERROR" } }]);
    const missing = await gql(e, `query Probe($id: ID!) { product(id: $id) { id } }`);
    expect(missing.body).toEqual({
      errors: [
        {
          message: "Variable $id of type ID! was provided invalid value",
          locations: [{ line: 1, column: 13 }],
          extensions: { code: "INVALID_VARIABLE", value: null, problems: [{ path: [], explanation: "Expected value to not be null" }] },
        },
      ],
    });
  });
});

describe("cost and throttling", () => {
  it("reports requested and actual cost on every answer", async () => {
    const e = await emulator();
    const full = await gql(e, `{ products(first: 10) { nodes { id title } } }`);
    // A page of 10 is priced as ⌊2·ln 10⌋ = 4 children (cost.ts).
    expect(full.body.extensions?.cost).toMatchObject({
      requestedQueryCost: 2 + 4,
      actualQueryCost: 2 + 4,
      throttleStatus: { maximumAvailable: 2000, restoreRate: 100 },
    });
    const few = await gql(e, `query($q: String) { products(first: 10, query: $q) { nodes { id variants(first: 5) { nodes { id } } } } }`, {
      q: `id:>${e.store.products.at(-2)?.id}`,
    });
    // 2 + 4 × (1 + 2 + 3 × 1) requested; one product with 5 variants came back: 2 + 1 × (1 + 2 + 3).
    expect(few.body.extensions?.cost).toMatchObject({ requestedQueryCost: 26, actualQueryCost: 8 });
    const mutation = await gql(e, `mutation { tagsAdd(id: "gid://shopify/Product/1", tags: ["x"]) { userErrors { field } } }`);
    expect(mutation.body.extensions?.cost).toMatchObject({ requestedQueryCost: 10, actualQueryCost: 10 });
  });

  it("refuses a query above the single query limit with Shopify's MAX_COST_EXCEEDED", async () => {
    const e = await emulator();
    const answer = await gql(e, `{ products(first: 250) { nodes { id variants(first: 250) { nodes { id metafields(first: 250) { nodes { id } } } } } } }`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.extensions).toBeUndefined();
    const cost = 2 + 11 * (1 + 2 + 11 * (1 + 2 + 11));
    const errors = answer.body.errors as { message: string; extensions: unknown }[];
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(new RegExp(`^Query cost is ${cost}, which exceeds the single query max cost limit \\(1000\\)\\.\n`));
    expect(errors[0]?.extensions).toEqual({ code: "MAX_COST_EXCEEDED", cost, maxCost: 1000, documentation: "https://shopify.dev/api/usage/limits#rate-limits" });
  });

  it("throttles when the bucket is short, with Shopify's THROTTLED body, and restores at the restore rate", async () => {
    const e = await emulator({ throttle: { maximumAvailable: 100, restoreRate: 50 } });
    // 2 + 9 × (1 + 2 + 3): 100 products of 5 variants each come back, so the actual cost is the same.
    const query = `{ products(first: 100) { nodes { id variants(first: 5) { nodes { id } } } } }`;
    const first = await gql(e, query);
    expect(first.body.data).toBeTruthy();
    expect(first.body.extensions?.cost).toMatchObject({ requestedQueryCost: 56, actualQueryCost: 56 });
    // Immediately again: about 44 points left, and 12 more take a quarter of a second to come back.
    const second = await gql(e, query);
    expect(second.status).toBe(200);
    expect(second.body.data).toBeUndefined();
    const status = second.body.extensions?.cost.throttleStatus;
    if (!status) throw new Error("no throttle status");
    expect(second.body).toEqual({
      errors: [{ message: "Throttled", extensions: { code: "THROTTLED", documentation: "https://shopify.dev/api/usage/rate-limits" } }],
      extensions: { cost: { requestedQueryCost: 56, actualQueryCost: null, throttleStatus: status } },
    });
    expect(Object.keys(status).sort()).toEqual(["currentlyAvailable", "maximumAvailable", "restoreRate"]);
    expect(status.currentlyAvailable).toBeLessThan(56);
    // Wait as long as the reported status says the deficit takes to restore, then it runs.
    await delay(((56 - status.currentlyAvailable) / status.restoreRate) * 1000 + 100);
    const third = await gql(e, query);
    expect(code(third)).toBeUndefined();
    expect(third.body.data).toBeTruthy();
    expect(e.stats()).toMatchObject({ requests: 3, throttled: 1, costSpent: 112 });
  });

  it("injects 5xx and THROTTLED answers, and stops when told", async () => {
    const e = await emulator({ faults: { errorRate: 1 } });
    const query = `{ shop { name } }`;
    const failed = await gql(e, query);
    expect([502, 503]).toContain(failed.status);
    e.setFaults({ throttleRate: 1 });
    expect(code(await gql(e, query))).toBe("THROTTLED");
    e.setFaults({});
    expect((await data<{ shop: { name: string } }>(e, query)).shop.name).toBe("Demo Store");
    expect(e.stats()).toMatchObject({ requests: 3, serverErrors: 1, throttled: 1 });
  });

  it("decides partial fault rates from the seed", async () => {
    const runs = await Promise.all(
      [0, 1].map(async () => {
        const e = await emulator({ seed: { products: 5, seed: 3 }, faults: { errorRate: 0.5 } });
        const statuses: number[] = [];
        for (let i = 0; i < 12; i++) statuses.push((await gql(e, `{ shop { name } }`)).status);
        return statuses;
      }),
    );
    expect(runs[0]).toEqual(runs[1]);
    expect(runs[0]).toContain(200);
    expect(runs[0]?.some((s) => s >= 500)).toBe(true);
  });

  it("refuses a missing or wrong access token", async () => {
    const e = await emulator();
    for (const token of [null, "wrong-token"]) {
      const answer = await gql(e, `{ shop { name } }`, {}, token);
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" });
    }
  });

  it("serves the API versions Shopify serves and answers 404 for any other", async () => {
    const e = await emulator();
    const at = async (version: string) =>
      fetch(e.graphqlUrl.replace(/\/admin\/api\/[^/]+\//, `/admin/api/${version}/`), {
        method: "POST",
        headers: { "content-type": "application/json", "x-shopify-access-token": e.accessToken },
        body: JSON.stringify({ query: "{ shop { name } }" }),
      });
    const current = await at("2026-07");
    expect(current.status).toBe(200);
    expect(current.headers.get("x-shopify-api-version")).toBe("2026-07");
    // No longer supported: falls forward to the oldest supported version.
    expect((await at("2023-01")).headers.get("x-shopify-api-version")).toBe("2025-07");
    for (const version of ["2026-08", "2027-01", "latest"]) {
      const answer = await at(version);
      expect(answer.status).toBe(404);
      expect(await answer.json()).toEqual({ errors: "Not Found" });
    }
  });
});

describe("mutations", () => {
  let e: Emulator;
  beforeAll(async () => {
    e = await emulator({ seed: { products: 40 } });
  });

  const TAGS_ADD = `mutation($id: ID!, $tags: [String!]!) { tagsAdd(id: $id, tags: $tags) {
    node { id ... on Product { tags } ... on Customer { tags } } userErrors { field message } } }`;
  const TAGS_REMOVE = `mutation($id: ID!, $tags: [String!]!) { tagsRemove(id: $id, tags: $tags) {
    node { id ... on Product { tags } } userErrors { field message } } }`;

  it("answers tagsAdd's and metafieldsDelete's errors as the platform's plain UserError: selecting a code fails validation", async () => {
    const answer = await gql(e, `mutation { tagsAdd(id: "gid://shopify/Product/1", tags: ["x"]) { userErrors { field message code } } }`);
    expect(answer.body.data).toBeUndefined();
    expect(JSON.stringify(answer.body.errors)).toContain("code");
    const deleted = await gql(e, `mutation { metafieldsDelete(metafields: []) { userErrors { code } } }`);
    expect(deleted.body.data).toBeUndefined();
  });

  it("adds and removes tags as a set, and reports an unknown id", async () => {
    const product = e.store.products.find((p) => p.tags.length === 0);
    if (!product) throw new Error("no untagged product");
    const id = `gid://shopify/Product/${product.id}`;
    const before = product.updatedAt;
    type Added = { tagsAdd: { node: { tags: string[] } | null; userErrors: UserError[] } };
    const added = await data<Added>(e, TAGS_ADD, { id, tags: ["vip", "preorder"] });
    expect(added.tagsAdd).toEqual({ node: { id, tags: ["preorder", "vip"] }, userErrors: [] });
    const again = await data<Added>(e, TAGS_ADD, { id, tags: ["VIP", "early, bird"] });
    expect(again.tagsAdd.node?.tags).toEqual(["early", "bird", "preorder", "vip"].sort());
    expect(product.updatedAt).toBeGreaterThan(before);
    const removed = await data<{ tagsRemove: { node: { tags: string[] } } }>(e, TAGS_REMOVE, { id, tags: ["vip", "absent"] });
    expect(removed.tagsRemove.node.tags).toEqual(["bird", "early", "preorder"]);

    const customer = `gid://shopify/Customer/${e.store.customers[0]?.id}`;
    const tagged = await data<Added>(e, TAGS_ADD, { id: customer, tags: ["back-in-stock"] });
    expect(tagged.tagsAdd.node?.tags).toContain("back-in-stock");

    const unknown = await data<Added>(e, TAGS_ADD, { id: "gid://shopify/Product/1", tags: ["x"] });
    expect(unknown.tagsAdd.node).toBeNull();
    expect(unknown.tagsAdd.userErrors[0]?.field).toEqual(["id"]);
  });

  const GROUP = `id name merchantCode options productVariantsCount { count precision }
    sellingPlans(first: 5) { nodes { id name category options
      billingPolicy { ... on SellingPlanFixedBillingPolicy { checkoutCharge { type value { ... on SellingPlanCheckoutChargePercentageValue { percentage } ... on MoneyV2 { amount currencyCode } } }
        remainingBalanceChargeTrigger remainingBalanceChargeExactTime } }
      deliveryPolicy { ... on SellingPlanFixedDeliveryPolicy { fulfillmentTrigger fulfillmentExactTime } } inventoryPolicy { reserve } } }
    productVariants(first: 10) { nodes { id } }`;
  const CREATE = `mutation($input: SellingPlanGroupInput!, $resources: SellingPlanGroupResourceInput) {
    sellingPlanGroupCreate(input: $input, resources: $resources) { sellingPlanGroup { ${GROUP} } userErrors { field message code } } }`;
  const UPDATE = `mutation($id: ID!, $input: SellingPlanGroupInput!) {
    sellingPlanGroupUpdate(id: $id, input: $input) { sellingPlanGroup { ${GROUP} } deletedSellingPlanIds userErrors { field message code } } }`;
  const ADD = `mutation($id: ID!, $ids: [ID!]!) {
    sellingPlanGroupAddProductVariants(id: $id, productVariantIds: $ids) { sellingPlanGroup { productVariantsCount { count } } userErrors { field message code } } }`;
  const REMOVE = `mutation($id: ID!, $ids: [ID!]!) {
    sellingPlanGroupRemoveProductVariants(id: $id, productVariantIds: $ids) { removedProductVariantIds userErrors { field message code } } }`;
  const DELETE = `mutation($id: ID!) { sellingPlanGroupDelete(id: $id) { deletedSellingPlanGroupId userErrors { field message code } } }`;

  const preorderPlan = {
    name: "Preorder, ships in March",
    options: ["Preorder"],
    category: "PRE_ORDER",
    billingPolicy: {
      fixed: {
        checkoutCharge: { type: "PERCENTAGE", value: { percentage: 50 } },
        remainingBalanceChargeTrigger: "EXACT_TIME",
        remainingBalanceChargeExactTime: "2027-03-01T00:00:00Z",
      },
    },
    deliveryPolicy: { fixed: { fulfillmentTrigger: "EXACT_TIME", fulfillmentExactTime: "2027-03-01T00:00:00Z" } },
    inventoryPolicy: { reserve: "ON_FULFILLMENT" },
  };

  type GroupShape = {
    id: string;
    productVariantsCount: { count: number; precision: string };
    sellingPlans: { nodes: { id: string; name: string; billingPolicy: { remainingBalanceChargeExactTime: string } }[] };
    productVariants: { nodes: { id: string }[] };
  };

  it("creates, updates, adds and removes variants of, and deletes a selling plan group", async () => {
    const variant = (i: number) => `gid://shopify/ProductVariant/${e.store.variants[i]?.id}`;
    const created = await data<{ sellingPlanGroupCreate: { sellingPlanGroup: GroupShape | null; userErrors: UserError[] } }>(e, CREATE, {
      input: { name: "Preorder", merchantCode: "preorder-1", options: ["Purchase option"], sellingPlansToCreate: [preorderPlan] },
      resources: { productVariantIds: [variant(0), variant(1)] },
    });
    expect(created.sellingPlanGroupCreate.userErrors).toEqual([]);
    const group = created.sellingPlanGroupCreate.sellingPlanGroup;
    if (!group) throw new Error("no group");
    expect(group.productVariantsCount).toEqual({ count: 2, precision: "EXACT" });
    expect(group.productVariants.nodes.map((n) => n.id)).toEqual([variant(0), variant(1)]);
    expect(group.sellingPlans.nodes[0]?.billingPolicy.remainingBalanceChargeExactTime).toBe("2027-03-01T00:00:00.000Z");

    const added = await data<{ sellingPlanGroupAddProductVariants: { sellingPlanGroup: { productVariantsCount: { count: number } }; userErrors: UserError[] } }>(
      e,
      ADD,
      { id: group.id, ids: [variant(2), variant(1)] },
    );
    expect(added.sellingPlanGroupAddProductVariants).toEqual({ sellingPlanGroup: { productVariantsCount: { count: 3 } }, userErrors: [] });

    const badAdd = await data<{ sellingPlanGroupAddProductVariants: { sellingPlanGroup: null; userErrors: UserError[] } }>(e, ADD, {
      id: group.id,
      ids: [variant(3), "gid://shopify/ProductVariant/1"],
    });
    expect(badAdd.sellingPlanGroupAddProductVariants.sellingPlanGroup).toBeNull();
    expect(badAdd.sellingPlanGroupAddProductVariants.userErrors).toEqual([
      // As the platform answers it (a recorded sellingPlanGroupAddProductVariants): on the list, code NOT_FOUND.
      { field: ["productVariantIds"], message: "Product variant gid://shopify/ProductVariant/1 does not exist.", code: "NOT_FOUND" },
    ]);

    const tooMany = await data<{ sellingPlanGroupAddProductVariants: { userErrors: UserError[] } }>(e, ADD, {
      id: group.id,
      ids: Array.from({ length: 251 }, (_, i) => variant(i)),
    });
    expect(tooMany.sellingPlanGroupAddProductVariants.userErrors[0]?.code).toBe("TOO_BIG");

    const removed = await data<{ sellingPlanGroupRemoveProductVariants: { removedProductVariantIds: string[]; userErrors: UserError[] } }>(e, REMOVE, {
      id: group.id,
      ids: [variant(0)],
    });
    expect(removed.sellingPlanGroupRemoveProductVariants).toEqual({ removedProductVariantIds: [variant(0)], userErrors: [] });

    const planId = group.sellingPlans.nodes[0]?.id;
    const updated = await data<{ sellingPlanGroupUpdate: { sellingPlanGroup: GroupShape | null; deletedSellingPlanIds: string[] | null; userErrors: UserError[] } }>(
      e,
      UPDATE,
      { id: group.id, input: { sellingPlansToUpdate: [{ id: planId, name: "Preorder, ships in April" }] } },
    );
    expect(updated.sellingPlanGroupUpdate.userErrors).toEqual([]);
    expect(updated.sellingPlanGroupUpdate.sellingPlanGroup?.sellingPlans.nodes[0]?.name).toBe("Preorder, ships in April");
    expect(updated.sellingPlanGroupUpdate.sellingPlanGroup?.productVariants.nodes.map((n) => n.id)).toEqual([variant(1), variant(2)]);

    const badUpdate = await data<{ sellingPlanGroupUpdate: { sellingPlanGroup: null; userErrors: UserError[] } }>(e, UPDATE, {
      id: group.id,
      input: { sellingPlansToDelete: ["gid://shopify/SellingPlan/9"] },
    });
    expect(badUpdate.sellingPlanGroupUpdate.userErrors[0]).toMatchObject({ field: ["input", "sellingPlansToDelete", "0"], code: "PLAN_DOES_NOT_EXIST" });

    const replaced = await data<{ sellingPlanGroupUpdate: { deletedSellingPlanIds: string[]; sellingPlanGroup: GroupShape } }>(e, UPDATE, {
      id: group.id,
      input: { sellingPlansToDelete: [planId], sellingPlansToCreate: [{ ...preorderPlan, name: "Preorder v2" }] },
    });
    expect(replaced.sellingPlanGroupUpdate.deletedSellingPlanIds).toEqual([planId]);
    expect(replaced.sellingPlanGroupUpdate.sellingPlanGroup.sellingPlans.nodes.map((p) => p.name)).toEqual(["Preorder v2"]);

    const deleted = await data<{ sellingPlanGroupDelete: { deletedSellingPlanGroupId: string | null; userErrors: UserError[] } }>(e, DELETE, {
      id: group.id,
    });
    expect(deleted.sellingPlanGroupDelete).toEqual({ deletedSellingPlanGroupId: group.id, userErrors: [] });
    expect(await data(e, `query($id: ID!) { sellingPlanGroup(id: $id) { id } }`, { id: group.id })).toEqual({ sellingPlanGroup: null });
    const again = await data<{ sellingPlanGroupDelete: { userErrors: UserError[] } }>(e, DELETE, { id: group.id });
    expect(again.sellingPlanGroupDelete.userErrors[0]).toMatchObject({ field: ["id"], code: "GROUP_DOES_NOT_EXIST" });
  });

  it("holds several plans: one update creates, updates and deletes them, keeping the ids of those it updates; names and options stay unique", async () => {
    const full = { ...preorderPlan, name: "Pay in full", options: ["Pay in full"], billingPolicy: { fixed: { checkoutCharge: { type: "PERCENTAGE", value: { percentage: 100 } }, remainingBalanceChargeTrigger: "NO_REMAINING_BALANCE" } } };
    const deposit = { ...preorderPlan, name: "Pay a deposit", options: ["Pay a deposit"] };
    const created = await data<{ sellingPlanGroupCreate: { sellingPlanGroup: GroupShape; userErrors: UserError[] } }>(e, CREATE, {
      input: { name: "Choice", merchantCode: "choice", options: ["Payment"], sellingPlansToCreate: [full, deposit] },
    });
    expect(created.sellingPlanGroupCreate.userErrors).toEqual([]);
    const group = created.sellingPlanGroupCreate.sellingPlanGroup;
    const [fullId, depositId] = group.sellingPlans.nodes.map((p) => p.id);
    expect(group.sellingPlans.nodes.map((p) => p.name)).toEqual(["Pay in full", "Pay a deposit"]);

    const duplicateName = await data<{ sellingPlanGroupUpdate: { sellingPlanGroup: null; userErrors: UserError[] } }>(e, UPDATE, {
      id: group.id,
      input: { sellingPlansToUpdate: [{ id: depositId, name: "Pay in full" }] },
    });
    expect(duplicateName.sellingPlanGroupUpdate).toMatchObject({ sellingPlanGroup: null, userErrors: [{ field: ["input", "sellingPlansToUpdate", "0", "name"], code: "SELLING_PLAN_DUPLICATE_NAME" }] });
    const duplicateOptions = await data<{ sellingPlanGroupUpdate: { userErrors: UserError[] } }>(e, UPDATE, {
      id: group.id,
      input: { sellingPlansToCreate: [{ ...deposit, name: "Another", options: ["Pay in full"] }] },
    });
    expect(duplicateOptions.sellingPlanGroupUpdate.userErrors.map((u) => u.code)).toEqual(["SELLING_PLAN_DUPLICATE_OPTIONS"]);

    // Copy swapped between the two plans and the deposit deleted for a new plan, in one update: checked as the group ends up.
    const changed = await data<{ sellingPlanGroupUpdate: { sellingPlanGroup: GroupShape; deletedSellingPlanIds: string[]; userErrors: UserError[] } }>(e, UPDATE, {
      id: group.id,
      input: { sellingPlansToUpdate: [{ id: fullId, name: "Pay a deposit", options: ["Pay a deposit"] }], sellingPlansToDelete: [depositId], sellingPlansToCreate: [{ ...full, name: "Everything", options: ["Everything"] }] },
    });
    expect(changed.sellingPlanGroupUpdate.userErrors).toEqual([]);
    expect(changed.sellingPlanGroupUpdate.deletedSellingPlanIds).toEqual([depositId]);
    const after = changed.sellingPlanGroupUpdate.sellingPlanGroup.sellingPlans.nodes;
    expect(after.map((p) => p.name)).toEqual(["Pay a deposit", "Everything"]);
    expect(after[0]?.id).toBe(fullId);
    expect(after[1]?.id).not.toBe(depositId);
  });

  it("refuses a group with unknown variants or an incomplete plan, creating nothing", async () => {
    const groupsBefore = e.store.sellingPlanGroups.size;
    const unknown = await data<{ sellingPlanGroupCreate: { sellingPlanGroup: null; userErrors: UserError[] } }>(e, CREATE, {
      input: { name: "Preorder", merchantCode: "p", options: ["o"], sellingPlansToCreate: [preorderPlan] },
      resources: { productVariantIds: [`gid://shopify/ProductVariant/${e.store.variants[0]?.id}`, "gid://shopify/ProductVariant/12"] },
    });
    expect(unknown.sellingPlanGroupCreate.sellingPlanGroup).toBeNull();
    expect(unknown.sellingPlanGroupCreate.userErrors).toEqual([
      { field: ["resources", "productVariantIds"], message: "Product variant gid://shopify/ProductVariant/12 does not exist.", code: "NOT_FOUND" },
    ]);

    const incomplete = await data<{ sellingPlanGroupCreate: { userErrors: UserError[] } }>(e, CREATE, {
      input: {
        name: "",
        merchantCode: "p",
        options: ["o"],
        sellingPlansToCreate: [
          {
            ...preorderPlan,
            billingPolicy: { fixed: { checkoutCharge: { type: "PERCENTAGE", value: { percentage: 20 } }, remainingBalanceChargeTrigger: "EXACT_TIME" } },
            deliveryPolicy: undefined,
          },
        ],
      },
    });
    expect(incomplete.sellingPlanGroupCreate.userErrors.map((u) => u.code).sort()).toEqual(
      ["BLANK", "REMAINING_BALANCE_CHARGE_EXACT_TIME_REQUIRED", "SELLING_PLAN_DELIVERY_POLICY_MISSING"].sort(),
    );
    expect(e.store.sellingPlanGroups.size).toBe(groupsBefore);
  });
});

describe("metafields", () => {
  let e: Emulator;
  beforeAll(async () => {
    e = await emulator({ seed: { products: 10 }, appId: 777 });
  });

  const SET = `mutation($m: [MetafieldsSetInput!]!) { metafieldsSet(metafields: $m) {
    metafields { id namespace key value type ownerType } userErrors { field message code elementIndex } } }`;
  const DELETE = `mutation($m: [MetafieldIdentifierInput!]!) { metafieldsDelete(metafields: $m) {
    deletedMetafields { ownerId namespace key } userErrors { field message } } }`;
  const READ = `query($id: ID!, $ns: String, $key: String!) { productVariant(id: $id) {
    metafield(namespace: $ns, key: $key) { namespace key value type ownerType compareDigest updatedAt }
    metafields(first: 10) { nodes { namespace key } } } }`;
  type SetAnswer = {
    metafieldsSet: {
      metafields: { id: string; namespace: string; key: string; value: string; type: string; ownerType: string }[] | null;
      userErrors: (UserError & { elementIndex: number | null })[];
    };
  };
  type Read = { productVariant: { metafield: { namespace: string; value: string; type: string; compareDigest: string; updatedAt: string } | null; metafields: { nodes: { namespace: string; key: string }[] } } };
  const variant = (i: number) => `gid://shopify/ProductVariant/${e.store.variants[i]?.id}`;
  const config = (ownerId: string, value: unknown, extra: Record<string, unknown> = {}) => ({
    ownerId,
    namespace: "$app:preorder",
    key: "config",
    type: "json",
    value: JSON.stringify(value),
    ...extra,
  });

  it("sets an app-reserved json metafield, resolves $app, reads it back, and costs a mutation's 10 (its payload's own objects are free)", async () => {
    const answer = await gql(e, SET, { m: [config(variant(0), { button: "Preorder" })] });
    expect(answer.body.extensions?.cost).toMatchObject({ requestedQueryCost: 10, actualQueryCost: 10 });
    const set = (answer.body.data as SetAnswer).metafieldsSet;
    expect(set.userErrors).toEqual([]);
    expect(set.metafields).toEqual([
      { id: expect.stringMatching(/^gid:\/\/shopify\/Metafield\/\d+$/) as string, namespace: "app--777--preorder", key: "config", value: '{"button":"Preorder"}', type: "json", ownerType: "PRODUCTVARIANT" },
    ]);
    const read = await data<Read>(e, READ, { id: variant(0), ns: "$app:preorder", key: "config" });
    expect(read.productVariant.metafield).toMatchObject({ namespace: "app--777--preorder", value: '{"button":"Preorder"}', type: "json" });
    expect(read.productVariant.metafields.nodes).toEqual([{ namespace: "app--777--preorder", key: "config" }]);
    // The resolved name reads the same metafield.
    expect((await data<Read>(e, READ, { id: variant(0), ns: "app--777--preorder", key: "config" })).productVariant.metafield?.value).toBe('{"button":"Preorder"}');

    // The same value again changes nothing; a new value moves updatedAt; a stale compareDigest is refused.
    const digest = read.productVariant.metafield?.compareDigest;
    await data<SetAnswer>(e, SET, { m: [config(variant(0), { button: "Preorder" })] });
    const same = await data<Read>(e, READ, { id: variant(0), ns: "$app:preorder", key: "config" });
    expect(same.productVariant.metafield?.updatedAt).toBe(read.productVariant.metafield?.updatedAt);
    await data<SetAnswer>(e, SET, { m: [config(variant(0), { button: "Order now" }, { compareDigest: digest })] });
    const stale = await data<SetAnswer>(e, SET, { m: [config(variant(0), { button: "Again" }, { compareDigest: digest })] });
    expect(stale.metafieldsSet.userErrors.map((u) => u.code)).toEqual(["STALE_OBJECT"]);
  });

  it("is atomic: one bad element (index and path named) and nothing of the call is set", async () => {
    const bad = await data<SetAnswer>(e, SET, {
      m: [
        config(variant(1), { ok: true }),
        config(variant(2), {}, { value: "{not json" }),
        config(variant(3), {}, { type: "hologram" }),
        config(variant(4), {}, { namespace: "app--999--theirs" }),
        { ownerId: variant(5), namespace: "$app:preorder", key: "k", value: "x", type: "single_line_text_field" },
        { ownerId: variant(6), namespace: "$app:preorder", key: "fresh", value: "x" },
        config(variant(7), {}, { value: JSON.stringify({ big: "x".repeat(131_072) }) }),
        config("gid://shopify/ProductVariant/1", {}),
      ],
    });
    expect(bad.metafieldsSet.metafields).toBeNull();
    // The path names the input; elementIndex is null, as the platform answers it.
    expect(bad.metafieldsSet.userErrors.map((u) => [u.elementIndex, u.field?.join("."), u.code])).toEqual([
      [null, "metafields.1.value", "INVALID_VALUE"],
      [null, "metafields.2.type", "INVALID_TYPE"],
      [null, "metafields.3.namespace", "APP_NOT_AUTHORIZED"],
      [null, "metafields.4.key", "TOO_SHORT"],
      [null, "metafields.5.type", "BLANK"],
      [null, "metafields.6.value", "TOO_LONG"],
      [null, "metafields.7.ownerId", "INVALID_VALUE"],
    ]);
    expect((await data<Read>(e, READ, { id: variant(1), ns: "$app:preorder", key: "config" })).productVariant.metafield).toBeNull();

    const many = await data<SetAnswer>(e, SET, { m: Array.from({ length: 26 }, (_, i) => config(variant(i % 10), { i }, { key: `k${i}` })) });
    expect(many.metafieldsSet.userErrors).toEqual([
      { field: ["metafields"], message: "Exceeded the maximum metafields input limit of 25.", code: "LESS_THAN_OR_EQUAL_TO", elementIndex: null },
    ]);
  });

  it("a customer is an owner (ownerType CUSTOMER), read back on the customer; a customer the store does not have is refused", async () => {
    const customer = `gid://shopify/Customer/${e.store.customers[0]?.id}`;
    const set = await data<SetAnswer>(e, SET, { m: [config(customer, { offer: 2 }, { key: "units" })] });
    expect(set.metafieldsSet.userErrors).toEqual([]);
    expect(set.metafieldsSet.metafields?.[0]).toMatchObject({ namespace: "app--777--preorder", key: "units", ownerType: "CUSTOMER" });
    type CustomerRead = { customer: { metafield: { value: string; ownerType: string } | null; metafields: { nodes: { key: string }[] } } };
    const read = await data<CustomerRead>(e, `query($id: ID!) { customer(id: $id) { metafield(namespace: "$app:preorder", key: "units") { value ownerType } metafields(first: 5) { nodes { key } } } }`, { id: customer });
    expect(read.customer).toEqual({ metafield: { value: '{"offer":2}', ownerType: "CUSTOMER" }, metafields: { nodes: [{ key: "units" }] } });
    const unknown = await data<SetAnswer>(e, SET, { m: [config("gid://shopify/Customer/1", { offer: 1 }, { key: "units" })] });
    expect(unknown.metafieldsSet.metafields).toBeNull();
    expect(unknown.metafieldsSet.userErrors).toEqual([
      { field: ["metafields", "0", "ownerId"], message: "Owner gid://shopify/Customer/1 does not exist.", code: "INVALID_VALUE", elementIndex: null },
    ]);
  });

  it("deletes by owner, namespace and key: null for one that does not exist; another app's namespace is refused", async () => {
    await data<SetAnswer>(e, SET, { m: [config(variant(8), { a: 1 }), config(`gid://shopify/Product/${e.store.products[0]?.id}`, { p: 1 })] });
    type Deleted = { metafieldsDelete: { deletedMetafields: ({ ownerId: string; namespace: string; key: string } | null)[] | null; userErrors: UserError[] } };
    const deleted = await data<Deleted>(e, DELETE, {
      m: [
        { ownerId: variant(8), namespace: "$app:preorder", key: "config" },
        { ownerId: variant(9), namespace: "$app:preorder", key: "config" },
      ],
    });
    expect(deleted.metafieldsDelete).toEqual({ deletedMetafields: [{ ownerId: variant(8), namespace: "app--777--preorder", key: "config" }, null], userErrors: [] });
    expect((await data<Read>(e, READ, { id: variant(8), ns: "$app:preorder", key: "config" })).productVariant.metafield).toBeNull();
    const foreign = await data<Deleted>(e, DELETE, { m: [{ ownerId: variant(8), namespace: "app--1--x", key: "config" }] });
    // The plain UserError has no code: the refusal is told by its field and message.
    expect(foreign.metafieldsDelete.userErrors).toHaveLength(1);
    expect(foreign.metafieldsDelete.userErrors[0]?.message).toBe("Access to this namespace and key on Metafields for this resource type is not allowed.");
  });
});

describe("fulfillment orders", () => {
  let e: Emulator;
  beforeAll(async () => {
    e = await emulator({ seed: { products: 10 }, appId: 777 });
  });

  type FulfillmentOrderView = {
    id: string;
    status: string;
    fulfillmentHolds: { id: string; handle: string | null; reason: string; reasonNotes: string | null; heldByRequestingApp: boolean }[];
    lineItems: { nodes: { id: string; totalQuantity: number; remainingQuantity: number; lineItem: { id: string } }[] };
  };
  const FULFILLMENT_ORDERS = `query($id: ID!) { order(id: $id) { lineItems(first: 10) { nodes { id } } fulfillmentOrders(first: 10) { nodes {
    id status fulfillmentHolds { id handle reason reasonNotes heldByRequestingApp }
    lineItems(first: 10) { nodes { id totalQuantity remainingQuantity lineItem { id } } } } } } }`;
  const HOLD = `mutation($id: ID!, $hold: FulfillmentOrderHoldInput!) { fulfillmentOrderHold(id: $id, fulfillmentHold: $hold) {
    fulfillmentHold { id handle reason reasonNotes } fulfillmentOrder { id status } remainingFulfillmentOrder { id status } userErrors { field message code } } }`;
  const RELEASE = `mutation($id: ID!, $holdIds: [ID!]) { fulfillmentOrderReleaseHold(id: $id, holdIds: $holdIds) {
    fulfillmentOrder { id status } userErrors { field message code } } }`;
  type Hold = {
    fulfillmentOrderHold: {
      fulfillmentHold: { id: string; handle: string | null; reason: string; reasonNotes: string | null } | null;
      fulfillmentOrder: { id: string; status: string } | null;
      remainingFulfillmentOrder: { id: string; status: string } | null;
      userErrors: UserError[];
    };
  };
  type Release = { fulfillmentOrderReleaseHold: { fulfillmentOrder: { id: string; status: string } | null; userErrors: UserError[] } };

  async function newOrder(quantities: number[]): Promise<{ id: number; gid: string }> {
    const created = await admin<{ order: { id: number; admin_graphql_api_id: string } }>(e, "POST", "/admin/orders", {
      line_items: quantities.map((quantity, i) => ({ variant_id: e.store.variants[i]?.id, quantity })),
      email: "fo@example.com",
    });
    expect(created.status).toBe(201);
    return { id: created.body.order.id, gid: created.body.order.admin_graphql_api_id };
  }
  async function fulfillmentOrders(orderGid: string): Promise<{ lines: string[]; orders: FulfillmentOrderView[] }> {
    const read = await data<{ order: { lineItems: { nodes: { id: string }[] }; fulfillmentOrders: { nodes: FulfillmentOrderView[] } } }>(e, FULFILLMENT_ORDERS, { id: orderGid });
    return { lines: read.order.lineItems.nodes.map((l) => l.id), orders: read.order.fulfillmentOrders.nodes };
  }

  it("gives a new order one OPEN fulfillment order with each line item's quantity remaining", async () => {
    const order = await newOrder([2, 1]);
    const { lines, orders } = await fulfillmentOrders(order.gid);
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ id: expect.stringMatching(/^gid:\/\/shopify\/FulfillmentOrder\/\d+$/) as string, status: "OPEN", fulfillmentHolds: [] });
    expect(orders[0]?.lineItems.nodes.map((l) => [l.lineItem.id, l.totalQuantity, l.remainingQuantity])).toEqual([
      [lines[0], 2, 2],
      [lines[1], 1, 1],
    ]);
  });

  it("holds with a reason and notes (OPEN to ON_HOLD), costs a mutation's 10 (its payload's own objects are free), and releases to OPEN", async () => {
    const order = await newOrder([1]);
    const fulfillmentOrderId = (await fulfillmentOrders(order.gid)).orders[0]?.id ?? "";
    const answer = await gql(e, HOLD, { id: fulfillmentOrderId, hold: { reason: "INVENTORY_OUT_OF_STOCK", reasonNotes: "Ships in March", handle: "preorder" } });
    // 10, and nothing for fulfillmentHold, fulfillmentOrder, remainingFulfillmentOrder and userErrors: the payload's own objects (a recorded metafieldsSet costs 10 the same way: test/fixtures/shopify-cost/).
    expect(answer.body.extensions?.cost).toMatchObject({ requestedQueryCost: 10, actualQueryCost: 10 });
    const held = (answer.body.data as Hold).fulfillmentOrderHold;
    expect(held).toEqual({
      fulfillmentHold: { id: expect.stringMatching(/^gid:\/\/shopify\/FulfillmentHold\/\d+$/) as string, handle: "preorder", reason: "INVENTORY_OUT_OF_STOCK", reasonNotes: "Ships in March" },
      fulfillmentOrder: { id: fulfillmentOrderId, status: "ON_HOLD" },
      remainingFulfillmentOrder: null,
      userErrors: [],
    });
    const view = (await fulfillmentOrders(order.gid)).orders[0];
    expect(view?.fulfillmentHolds).toEqual([{ id: held.fulfillmentHold?.id, handle: "preorder", reason: "INVENTORY_OUT_OF_STOCK", reasonNotes: "Ships in March", heldByRequestingApp: true }]);

    // The same handle again is a duplicate; another handle is a second hold, and the order stays held until both go.
    const again = await data<Hold>(e, HOLD, { id: fulfillmentOrderId, hold: { reason: "OTHER", handle: "preorder" } });
    expect(again.fulfillmentOrderHold.userErrors.map((u) => u.code)).toEqual(["DUPLICATE_FULFILLMENT_HOLD_HANDLE"]);
    const second = await data<Hold>(e, HOLD, { id: fulfillmentOrderId, hold: { reason: "AWAITING_PAYMENT", handle: "other" } });
    expect(second.fulfillmentOrderHold.userErrors).toEqual([]);
    const first = await data<Release>(e, RELEASE, { id: fulfillmentOrderId, holdIds: [held.fulfillmentHold?.id] });
    expect(first.fulfillmentOrderReleaseHold).toEqual({ fulfillmentOrder: { id: fulfillmentOrderId, status: "ON_HOLD" }, userErrors: [] });
    const last = await data<Release>(e, RELEASE, { id: fulfillmentOrderId, holdIds: [second.fulfillmentOrderHold.fulfillmentHold?.id] });
    expect(last.fulfillmentOrderReleaseHold).toEqual({ fulfillmentOrder: { id: fulfillmentOrderId, status: "OPEN" }, userErrors: [] });
    const notHeld = await data<Release>(e, RELEASE, { id: fulfillmentOrderId, holdIds: [second.fulfillmentOrderHold.fulfillmentHold?.id] });
    expect(notHeld.fulfillmentOrderReleaseHold.userErrors.map((u) => u.field)).toEqual([["id"]]);
  });

  it("holds some line items by splitting the rest off into an OPEN fulfillment order", async () => {
    const order = await newOrder([3, 1]);
    const before = (await fulfillmentOrders(order.gid)).orders[0];
    const [first, second] = before?.lineItems.nodes ?? [];
    const held = await data<Hold>(e, HOLD, { id: before?.id, hold: { reason: "INVENTORY_OUT_OF_STOCK", fulfillmentOrderLineItems: [{ id: first?.id, quantity: 2 }] } });
    expect(held.fulfillmentOrderHold.userErrors).toEqual([]);
    expect(held.fulfillmentOrderHold.remainingFulfillmentOrder?.status).toBe("OPEN");
    const { lines, orders } = await fulfillmentOrders(order.gid);
    expect(orders.map((o) => [o.status, o.lineItems.nodes.map((l) => [l.lineItem.id, l.remainingQuantity])])).toEqual([
      ["ON_HOLD", [[lines[0], 2]]],
      ["OPEN", [[lines[0], 1], [lines[1], 1]]],
    ]);
    expect(second?.lineItem.id).toBe(lines[1]);
    // Line items of a fulfillment order already on hold cannot be split off.
    const split = await data<Hold>(e, HOLD, { id: before?.id, hold: { reason: "OTHER", handle: "x", fulfillmentOrderLineItems: [{ id: first?.id, quantity: 1 }] } });
    expect(split.fulfillmentOrderHold.userErrors.map((u) => u.code)).toEqual(["FULFILLMENT_ORDER_NOT_SPLITTABLE"]);
  });

  it("refuses unknown fulfillment orders, bad quantities, and a CANCELLED or CLOSED one, changing nothing", async () => {
    const unknown = await data<Hold>(e, HOLD, { id: "gid://shopify/FulfillmentOrder/1", hold: { reason: "OTHER" } });
    expect(unknown.fulfillmentOrderHold).toMatchObject({ fulfillmentHold: null, userErrors: [{ field: ["id"], code: "FULFILLMENT_ORDER_NOT_FOUND" }] });
    const unknownRelease = await data<Release>(e, RELEASE, { id: "gid://shopify/FulfillmentOrder/1" });
    expect(unknownRelease.fulfillmentOrderReleaseHold.userErrors.map((u) => u.code)).toEqual(["FULFILLMENT_ORDER_NOT_FOUND"]);

    const order = await newOrder([2]);
    const open = (await fulfillmentOrders(order.gid)).orders[0];
    const line = open?.lineItems.nodes[0]?.id;
    const quantities = await data<Hold>(e, HOLD, {
      id: open?.id,
      hold: { reason: "OTHER", fulfillmentOrderLineItems: [{ id: line, quantity: 3 }, { id: line, quantity: 1 }] },
    });
    expect(quantities.fulfillmentOrderHold.userErrors.map((u) => u.code)).toEqual(["INVALID_LINE_ITEM_QUANTITY", "DUPLICATED_FULFILLMENT_ORDER_LINE_ITEMS"]);
    const zero = await data<Hold>(e, HOLD, { id: open?.id, hold: { reason: "OTHER", fulfillmentOrderLineItems: [{ id: line, quantity: 0 }] } });
    expect(zero.fulfillmentOrderHold.userErrors.map((u) => u.code)).toEqual(["GREATER_THAN_ZERO"]);
    expect((await fulfillmentOrders(order.gid)).orders.map((o) => o.status)).toEqual(["OPEN"]);

    expect((await admin(e, "POST", `/admin/orders/${order.id}/cancel`)).status).toBe(200);
    expect((await fulfillmentOrders(order.gid)).orders.map((o) => o.status)).toEqual(["CANCELLED"]);
    const cancelled = await data<Hold>(e, HOLD, { id: open?.id, hold: { reason: "OTHER" } });
    expect(cancelled.fulfillmentOrderHold).toMatchObject({ fulfillmentHold: null, fulfillmentOrder: null, userErrors: [{ field: ["id"], code: null }] });

    const fulfilled = await newOrder([1]);
    expect((await admin(e, "POST", `/admin/orders/${fulfilled.id}/fulfill`)).status).toBe(200);
    const closed = (await fulfillmentOrders(fulfilled.gid)).orders[0];
    expect(closed).toMatchObject({ status: "CLOSED", lineItems: { nodes: [{ remainingQuantity: 0 }] } });
    const refused = await data<Hold>(e, HOLD, { id: closed?.id, hold: { reason: "OTHER" } });
    expect(refused.fulfillmentOrderHold.userErrors).toHaveLength(1);
  });

  it("refuses to fulfil an order while a fulfillment order is on hold", async () => {
    const order = await newOrder([1]);
    const fulfillmentOrderId = (await fulfillmentOrders(order.gid)).orders[0]?.id;
    await data<Hold>(e, HOLD, { id: fulfillmentOrderId, hold: { reason: "INVENTORY_OUT_OF_STOCK" } });
    expect((await admin(e, "POST", `/admin/orders/${order.id}/fulfill`)).status).toBe(422);
  });
});

describe("admin routes and webhooks", () => {
  let e: Emulator;
  let hook: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    hook = await receiver(1);
    e = await emulator({ seed: { products: 20 }, webhooks: { url: hook.url, secret: SECRET, backoffMs: 10 } });
  });
  afterAll(async () => {
    await new Promise((resolve) => hook.server.close(resolve));
  });

  it("lists seeded variants", async () => {
    const listed = await admin<{ total: number; variants: { id: string; legacy_id: number; inventory_item_id: number; available: unknown[] }[] }>(
      e,
      "GET",
      "/admin/variants?limit=3",
    );
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(100);
    expect(listed.body.variants).toHaveLength(3);
    expect(listed.body.variants[0]).toMatchObject({ id: `gid://shopify/ProductVariant/${e.store.variants[0]?.id}`, legacy_id: e.store.variants[0]?.id });
    expect(listed.body.variants[0]?.available).toHaveLength(2);
  });

  it("sets inventory and sends a signed inventory_levels/update, retried after a failure and redelivered with the same id", async () => {
    const variant = e.store.variants[5];
    if (!variant) throw new Error("no variant");
    const set = await admin<{ inventory_level: { available: number; location_id: number; inventory_item_id: number }; webhook_id: string }>(
      e,
      "POST",
      "/admin/inventory",
      { variant_id: `gid://shopify/ProductVariant/${variant.id}`, available: 0 },
    );
    expect(set.status).toBe(200);
    expect(set.body.inventory_level).toMatchObject({ available: 0, location_id: e.store.activeLocations()[0]?.id });
    await e.webhooksSettled();
    // The receiver refused the first attempt; the second got through.
    const attempts = hook.received.filter((r) => r.headers["x-shopify-webhook-id"] === set.body.webhook_id);
    expect(attempts).toHaveLength(2);
    const delivered = attempts[1];
    if (!delivered) throw new Error("not delivered");
    expect(delivered.path).toBe("/webhooks/platform/inventory_levels/update");
    expect(delivered.headers["x-shopify-topic"]).toBe("inventory_levels/update");
    expect(delivered.headers["x-shopify-shop-domain"]).toBe(e.shopDomain);
    expect(delivered.headers["x-shopify-triggered-at"]).toBeTruthy();
    expect(validSignature(delivered.raw, delivered.headers["x-shopify-hmac-sha256"])).toBe(true);
    expect(validSignature(Buffer.from(`${delivered.raw.toString()} `), delivered.headers["x-shopify-hmac-sha256"])).toBe(false);
    expect(JSON.parse(delivered.raw.toString())).toMatchObject({
      inventory_item_id: set.body.inventory_level.inventory_item_id,
      location_id: set.body.inventory_level.location_id,
      available: 0,
      admin_graphql_api_id: expect.stringMatching(/^gid:\/\/shopify\/InventoryLevel\//) as string,
    });
    expect(e.deliveries.find((d) => d.id === set.body.webhook_id)).toMatchObject({ status: "delivered", attempts: 2 });

    await e.redeliver(set.body.webhook_id);
    const all = hook.received.filter((r) => r.headers["x-shopify-webhook-id"] === set.body.webhook_id);
    expect(all).toHaveLength(3);
    expect(all[2]?.raw.equals(delivered.raw)).toBe(true);
    expect(validSignature(all[2]?.raw ?? Buffer.alloc(0), all[2]?.headers["x-shopify-hmac-sha256"])).toBe(true);
  });

  it("sets inventory through setInventory as the admin route does: the level, then its signed webhook", async () => {
    const variant = e.store.variants[6];
    const location = e.store.activeLocations()[0];
    if (!variant || !location) throw new Error("no variant or location");
    const index = e.store.variantIndex(variant);
    const webhookId = e.setInventory(index, location, 9);
    expect(location.levels?.available[index]).toBe(9);
    await e.webhooksSettled();
    const delivered = hook.received.filter((r) => r.headers["x-shopify-webhook-id"] === webhookId).at(-1);
    if (!delivered) throw new Error("not delivered");
    expect(delivered.path).toBe("/webhooks/platform/inventory_levels/update");
    expect(validSignature(delivered.raw, delivered.headers["x-shopify-hmac-sha256"])).toBe(true);
    expect(JSON.parse(delivered.raw.toString())).toMatchObject({ location_id: location.id, available: 9 });
  });

  it("creates an order and sends orders/create and orders/paid; cancels it with orders/cancelled", async () => {
    const variant = e.store.variants[1];
    const created = await admin<{ order: { id: number; admin_graphql_api_id: string; total_price: string; line_items: unknown[] }; webhook_ids: string[] }>(
      e,
      "POST",
      "/admin/orders",
      { line_items: [{ variant_id: variant?.id, quantity: 2 }], email: "buyer@example.com" },
    );
    expect(created.status).toBe(201);
    expect(created.body.webhook_ids).toHaveLength(2);
    expect(created.body.order.line_items).toEqual([
      { id: expect.any(Number) as number, variant_id: variant?.id, product_id: variant?.productId, quantity: 2, current_quantity: 2, price: expect.any(String) as string, selling_plan_allocation: null, properties: [] },
    ]);
    const topics = await waitFor("order webhooks", async () => {
      const seen = hook.received.filter((r) => created.body.webhook_ids.includes(String(r.headers["x-shopify-webhook-id"])));
      return seen.length === 2 ? seen.map((r) => r.headers["x-shopify-topic"]).sort() : undefined;
    });
    expect(topics).toEqual(["orders/create", "orders/paid"]);
    const body = JSON.parse(hook.received.find((r) => r.headers["x-shopify-topic"] === "orders/create")?.raw.toString() ?? "{}") as Record<string, unknown>;
    expect(body).toMatchObject({ id: created.body.order.id, financial_status: "paid", email: "buyer@example.com", customer: { email: "buyer@example.com" } });

    const listed = await data<{ orders: PageOf<{ id: string; totalPrice: string; displayFinancialStatus: string }> }>(
      e,
      `{ orders(first: 10) { nodes { id totalPrice displayFinancialStatus } pageInfo { hasNextPage endCursor } } }`,
    );
    expect(listed.orders.nodes).toEqual([{ id: created.body.order.admin_graphql_api_id, totalPrice: created.body.order.total_price, displayFinancialStatus: "PAID" }]);

    const cancelled = await admin<{ order: { cancelled_at: string | null }; webhook_ids: string[] }>(e, "POST", `/admin/orders/${created.body.order.id}/cancel`, {});
    expect(cancelled.body.order.cancelled_at).toBeTruthy();
    await e.webhooksSettled();
    expect(hook.received.some((r) => r.headers["x-shopify-webhook-id"] === cancelled.body.webhook_ids[0] && r.headers["x-shopify-topic"] === "orders/cancelled")).toBe(true);
    expect((await admin(e, "POST", `/admin/orders/${created.body.order.id}/cancel`, {})).status).toBe(422);
  });

  it("refuses an order for an unknown variant", async () => {
    const refused = await admin<{ error: string }>(e, "POST", "/admin/orders", { line_items: [{ variant_id: 1, quantity: 1 }] });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/does not exist/);
  });
});

describe("scale", () => {
  it("seeds and serves 100,000 variants", async () => {
    const before = performance.now();
    const e = await emulator({ seed: { products: 20_000, variantsPerProduct: 5 } });
    const seconds = (performance.now() - before) / 1000;
    console.log(`emulator with 100,000 variants started in ${seconds.toFixed(2)} s (rss ${Math.round(process.memoryUsage().rss / 1e6)} MB)`);
    expect(e.store.variants).toHaveLength(100_000);
    const last = e.store.variants.at(-1)?.id;
    const page = await data<{ productVariants: PageOf<{ id: string }> }>(
      e,
      `query($q: String) { productVariants(first: 250, query: $q) { nodes { id } pageInfo { hasNextPage endCursor } } }`,
      { q: `id:>${(last ?? 0) - 100}` },
    );
    expect(page.productVariants.nodes).toHaveLength(100);
    expect(page.productVariants.pageInfo.hasNextPage).toBe(false);
    await e.close();
  });
});
