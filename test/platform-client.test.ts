import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";
import { PlatformClient, type PlatformClientOptions, type PlatformLogger } from "../src/platform/client.ts";
import { expectNoUserErrors, PlatformError } from "../src/platform/errors.ts";
import { type Emulator, startEmulator } from "../src/platform/emulator/index.ts";
import { addCustomerTags, getCustomer, removeCustomerTags } from "../src/platform/operations/customers.ts";
import { chunk } from "../src/platform/operations/chunk.ts";
import { getFulfillmentOrders, holdFulfillmentOrder, releaseFulfillmentOrderHolds } from "../src/platform/operations/fulfillment-orders.ts";
import { deleteMetafields, getOwnerMetafields, getShopMetafield, setMetafields } from "../src/platform/operations/metafields.ts";
import { getInventoryLevels } from "../src/platform/operations/inventory.ts";
import { completeDraftOrder, createDraftOrder, editOrderQuantities, getDraftOrder, getOrderLineQuantities, splitFulfillmentOrder } from "../src/platform/operations/order-splits.ts";
import { getOrder, listOrders } from "../src/platform/operations/orders.ts";
import {
  addVariantsToSellingPlanGroup,
  createSellingPlanGroup,
  deleteSellingPlanGroup,
  getSellingPlanGroup,
  removeVariantsFromSellingPlanGroup,
  sellingPlanGroupVariantIds,
  updateSellingPlanGroup,
} from "../src/platform/operations/selling-plans.ts";
import { collect, paginate } from "../src/platform/paginate.ts";
import { type PlatformDocument, documentErrors, documentLiterals, exportedDocuments } from "./helpers/platform-documents.ts";

const TOKEN = "fake-secret-token-123";

interface GraphQLBody {
  query: string;
  variables: Record<string, unknown>;
}

/** What the fake answers to one request. */
type Reply =
  | { data: unknown }
  | { throttled: true }
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | { errors: { message: string; extensions?: { code: string } }[] }
  | { hang: true };

interface FakeBucket {
  maximumAvailable: number;
  restoreRate: number;
  /** What every query costs. */
  cost: number;
}

type Responder = (body: GraphQLBody, index: number) => Reply;

interface Seen {
  body: GraphQLBody;
  /** The fake's bucket just before it charged this request. */
  availableBefore: number;
  throttled: boolean;
}

/**
 * A stand-in for the platform's Admin GraphQL endpoint on 127.0.0.1: it checks the token,
 * keeps an honest leaky bucket (throttling a request the bucket cannot pay for) and answers
 * what `reply` says, with cost extensions like the platform's.
 */
class FakePlatform {
  readonly seen: Seen[] = [];
  throttledAnswers = 0;
  #available: number;
  #at = performance.now();
  readonly #server: http.Server;
  readonly #bucket: FakeBucket;
  readonly #reply: Responder;

  private constructor(server: http.Server, bucket: FakeBucket, reply: Responder) {
    this.#server = server;
    this.#bucket = bucket;
    this.#reply = reply;
    this.#available = bucket.maximumAvailable;
    server.on("request", (req, res) => void this.#handle(req, res));
  }

  static async start(
    reply: Responder = () => ({ data: { ok: true } }),
    bucket: Partial<FakeBucket> = {},
  ): Promise<FakePlatform> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const fake = new FakePlatform(server, { maximumAvailable: 1000, restoreRate: 50, cost: 10, ...bucket }, reply);
    fakes.push(fake);
    return fake;
  }

  get graphqlUrl(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/admin/api/2026-07/graphql.json`;
  }

  client(options: Partial<PlatformClientOptions> = {}): PlatformClient {
    return new PlatformClient({ graphqlUrl: this.graphqlUrl, accessToken: TOKEN, minRetryDelayMs: 5, maxRetryDelayMs: 50, ...options });
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #status(): { maximumAvailable: number; currentlyAvailable: number; restoreRate: number } {
    const now = performance.now();
    const { maximumAvailable, restoreRate } = this.#bucket;
    this.#available = Math.min(maximumAvailable, this.#available + (restoreRate * (now - this.#at)) / 1000);
    this.#at = now;
    return { maximumAvailable, currentlyAvailable: this.#available, restoreRate };
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const part of req) chunks.push(part as Buffer);
    if (req.headers["x-shopify-access-token"] !== TOKEN) {
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ errors: "Invalid API key or access token" }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as GraphQLBody;
    const { cost } = this.#bucket;
    const before = this.#status();
    const throttledByBucket = before.currentlyAvailable < cost;
    const reply: Reply = throttledByBucket ? { throttled: true } : this.#reply(body, this.seen.length);
    const throttled = "throttled" in reply;
    this.seen.push({ body, availableBefore: before.currentlyAvailable, throttled });
    if ("hang" in reply) return;
    if ("status" in reply) {
      res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers }).end(JSON.stringify(reply.body ?? {}));
      return;
    }
    if (throttled) {
      this.throttledAnswers++;
      const extensions = { cost: { requestedQueryCost: cost, actualQueryCost: null, throttleStatus: this.#status() } };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ errors: [{ message: "Throttled", extensions: { code: "THROTTLED" } }], extensions }));
      return;
    }
    this.#available -= cost;
    const extensions = { cost: { requestedQueryCost: cost, actualQueryCost: cost, throttleStatus: this.#status() } };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify("data" in reply ? { data: reply.data, extensions } : { errors: reply.errors, extensions }));
  }
}

const fakes: FakePlatform[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

/** Captures what the client logs, to check what it says (and that it never says the token). */
function captureLog(): PlatformLogger & { entries: { fields: object; message: string }[] } {
  const entries: { fields: object; message: string }[] = [];
  return {
    entries,
    warn: (fields, message) => entries.push({ fields, message }),
  };
}

async function rejection(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

const QUERY = "query Ping { shop { id } }";

describe("operation documents", () => {
  // Every document the client sends, checked against Shopify's own schema (decision 0216), deprecated
  // fields and arguments refused. Found twice: as `query X`/`mutation X` literals in the sources
  // (outside the emulator) and as exports of the modules holding them; the two must agree, so a
  // document cannot be added where this test does not see it.
  const literals = documentLiterals();
  let documents: PlatformDocument[] = [];
  beforeAll(async () => {
    documents = await exportedDocuments(literals.keys());
  });

  it("finds every document written in the sources among the modules' exports", () => {
    const written = [...literals].flatMap(([module, names]) => names.map((name) => `${module} ${name}`)).sort();
    expect(documents.map((d) => `${d.module} ${d.operation}`).sort()).toEqual(written);
    // The count of what the client sends (issue 29): a new document is added here on purpose
    // (45th: MirrorVariantsCount, a full sync's total before its first page, issue 32).
    expect(written).toHaveLength(45);
    expect(new Set(documents.map((d) => d.operation)).size).toBe(documents.length);
  });

  it("validates each one against admin-2026-07.graphql with no deprecated field", () => {
    const invalid = documents.map((d) => ({ operation: d.operation, errors: documentErrors(d.text) })).filter((d) => d.errors.length > 0);
    expect(invalid).toEqual([]);
  });

  it("refuses a document the platform does not accept, and a deprecated field", () => {
    expect(documentErrors("query Q { order(id: \"x\") { totalOutstanding } }")).toEqual([expect.stringContaining('Cannot query field "totalOutstanding" on type "Order"')]);
    expect(documentErrors("query Q { customer(id: \"x\") { email } }")).toEqual([expect.stringContaining("Customer.email is deprecated")]);
  });
});

describe("pacing on the cost bucket (fake platform)", () => {
  // 30 queries of 40 points against a 100-point bucket: without waiting, most would be throttled.
  const bucket = { maximumAvailable: 100, restoreRate: 500, cost: 40 };

  it("paces 20 sequential and then 10 concurrent requests without being throttled", async () => {
    const fake = await FakePlatform.start(undefined, bucket);
    const client = fake.client();
    for (let i = 0; i < 20; i++) await client.request(QUERY);
    await Promise.all(Array.from({ length: 10 }, () => client.request(QUERY)));

    expect(fake.seen).toHaveLength(30);
    expect(fake.throttledAnswers).toBe(0);
    expect(client.stats).toMatchObject({ requests: 30, throttled: 0, retries: 0, costSpent: 30 * 40 });
    // It waited for budget (it never sent into an empty bucket) but not needlessly long.
    expect(Math.min(...fake.seen.map((s) => s.availableBefore))).toBeGreaterThanOrEqual(40);
    expect(Math.min(...fake.seen.map((s) => s.availableBefore))).toBeLessThan(80);
  });

  it("lets one request learn the bucket before a burst of concurrent ones spends it", async () => {
    const fake = await FakePlatform.start(undefined, bucket);
    const client = fake.client({ defaultQueryCost: 40 });
    await Promise.all(Array.from({ length: 10 }, () => client.request(QUERY)));

    expect(fake.seen).toHaveLength(10);
    expect(fake.throttledAnswers).toBe(0);
    expect(client.stats.throttled).toBe(0);
  });

  it("learns a query's cost from the answers, so a dear query waits for more budget", async () => {
    const fake = await FakePlatform.start(undefined, { maximumAvailable: 100, restoreRate: 500, cost: 90 });
    // The default guess (10) is far too low; after the first answer the client knows it costs 90.
    const client = fake.client({ defaultQueryCost: 10 });
    for (let i = 0; i < 6; i++) await client.request(QUERY);

    expect(fake.throttledAnswers).toBe(0);
    expect(client.stats.throttled).toBe(0);
  });

  it("shares one bucket between clients given the same one", async () => {
    const fake = await FakePlatform.start(undefined, bucket);
    const first = fake.client({ defaultQueryCost: 40 });
    const second = fake.client({ defaultQueryCost: 40, bucket: first.bucket });
    await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? first : second).request(QUERY)));

    expect(fake.seen).toHaveLength(6);
    expect(fake.throttledAnswers).toBe(0);
  });
});

describe("retries (fake platform)", () => {
  it("retries THROTTLED answers and succeeds", async () => {
    const fake = await FakePlatform.start((_, i) => (i < 2 ? { throttled: true } : { data: { shop: { id: "gid://shopify/Shop/1" } } }));
    const client = fake.client();
    await expect(client.request(QUERY)).resolves.toEqual({ shop: { id: "gid://shopify/Shop/1" } });
    expect(client.stats).toMatchObject({ requests: 3, throttled: 2, retries: 2 });
  });

  it("retries a 503 and succeeds", async () => {
    const fake = await FakePlatform.start((_, i) => (i === 0 ? { status: 503 } : { data: { ok: 1 } }));
    // The service's own pino logger fits the client's logger option.
    const client = fake.client({ log: createLogger("silent") });
    await expect(client.request(QUERY)).resolves.toEqual({ ok: 1 });
    expect(client.stats).toMatchObject({ requests: 2, serverErrors: 1, retries: 1 });
  });

  it("a request that must not run twice (idempotent: false) is retried when throttled, never after a lost answer", async () => {
    const fake = await FakePlatform.start((_, i) => (i === 0 ? { throttled: true } : i === 1 ? { status: 503 } : { data: { ok: 1 } }));
    const client = fake.client();
    const lost = await client.request(QUERY, {}, { idempotent: false }).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(PlatformError);
    expect((lost as PlatformError).kind).toBe("http");
    // Throttled: not run, so sent again; the 503 may have run it, so not sent a third time.
    expect(client.stats).toMatchObject({ requests: 2, throttled: 1, serverErrors: 1, retries: 1 });
  });

  it("honours Retry-After on a 429", async () => {
    const fake = await FakePlatform.start((_, i) => (i === 0 ? { status: 429, headers: { "retry-after": "0.3" } } : { data: { ok: 1 } }));
    const log = captureLog();
    const client = fake.client({ log });
    await expect(client.request(QUERY)).resolves.toEqual({ ok: 1 });
    expect(client.stats).toMatchObject({ requests: 2, throttled: 1, retries: 1 });
    expect(log.entries).toHaveLength(1);
    expect(log.entries[0]?.fields).toMatchObject({ operation: "Ping", attempt: 2, status: 429, delayMs: 300 });
  });

  it("gives up after maxAttempts on a lasting 500 with a clear error", async () => {
    const fake = await FakePlatform.start(() => ({ status: 500 }));
    const log = captureLog();
    const client = fake.client({ maxAttempts: 3, log });
    const error = await rejection(client.request(QUERY));

    expect(error).toMatchObject({ kind: "http", status: 500, attempts: 3 });
    expect(error.message).toBe("Platform Ping failed after 3 attempts: HTTP 500 Internal Server Error");
    expect(fake.seen).toHaveLength(3);
    expect(client.stats).toMatchObject({ requests: 3, serverErrors: 3, retries: 2 });
    expect(log.entries).toHaveLength(2);
    expect(JSON.stringify(log.entries)).not.toContain(TOKEN);
  });

  it("times out each attempt of a request the platform never answers", async () => {
    const fake = await FakePlatform.start(() => ({ hang: true }));
    const client = fake.client({ timeoutMs: 200, maxAttempts: 2 });
    const error = await rejection(client.request(QUERY));

    expect(error).toMatchObject({ kind: "timeout", attempts: 2 });
    expect(error.message).toBe("Platform Ping failed after 2 attempts: no answer within 200 ms");
    expect(fake.seen).toHaveLength(2);
    expect(client.stats.timeouts).toBe(2);
  });

  it("retries network errors and reports them", async () => {
    const fake = await FakePlatform.start();
    const url = fake.graphqlUrl;
    await fake.close();
    const client = new PlatformClient({ graphqlUrl: url, accessToken: TOKEN, maxAttempts: 2, minRetryDelayMs: 5 });
    const error = await rejection(client.request(QUERY));

    expect(error).toMatchObject({ kind: "network", attempts: 2, status: undefined });
    expect(error.message).toMatch(/^Platform Ping failed after 2 attempts: network error: .*ECONNREFUSED/);
  });

  it("does not retry GraphQL validation errors", async () => {
    const fake = await FakePlatform.start(() => ({
      errors: [{ message: "Field 'nope' doesn't exist on type 'Shop'", extensions: { code: "undefinedField" } }],
    }));
    const client = fake.client();
    const error = await rejection(client.request("query Bad { shop { nope } }"));

    expect(error).toMatchObject({ kind: "graphql", attempts: 1, status: 200 });
    expect(error.message).toBe("Platform Bad failed: GraphQL errors: Field 'nope' doesn't exist on type 'Shop' (undefinedField)");
    expect(fake.seen).toHaveLength(1);
  });

  it("does not retry MAX_COST_EXCEEDED", async () => {
    const fake = await FakePlatform.start(() => ({
      errors: [{ message: "Query cost is 5002, which exceeds the single query max cost limit (1000).", extensions: { code: "MAX_COST_EXCEEDED" } }],
    }));
    const client = fake.client();
    const error = await rejection(client.request(QUERY));
    expect(error).toMatchObject({ kind: "graphql", attempts: 1 });
    expect(error.message).toContain("MAX_COST_EXCEEDED");
    expect(fake.seen).toHaveLength(1);
  });

  it("does not retry a refused token (401) and never shows the token", async () => {
    const fake = await FakePlatform.start();
    const client = new PlatformClient({ graphqlUrl: fake.graphqlUrl, accessToken: "wrong-token", minRetryDelayMs: 5 });
    const error = await rejection(client.request(QUERY));

    expect(error).toMatchObject({ kind: "auth", status: 401, attempts: 1 });
    expect(error.message).not.toContain("wrong-token");
    expect(fake.seen).toHaveLength(0);
    expect(client.stats.requests).toBe(1);
  });

  it("stops at once when the caller aborts", async () => {
    const fake = await FakePlatform.start(() => ({ hang: true }));
    const client = fake.client({ timeoutMs: 10_000 });
    const controller = new AbortController();
    const pending = client.request(QUERY, {}, { signal: controller.signal });
    await waitUntil(() => fake.seen.length === 1);
    controller.abort(new Error("shutting down"));

    await expect(pending).rejects.toThrow("shutting down");
    expect(client.stats).toMatchObject({ requests: 1, retries: 0, timeouts: 0 });
  });
});

describe("user errors, chunking and paging (fake platform)", () => {
  const group = (count: number) => ({
    id: "gid://shopify/SellingPlanGroup/1",
    name: "Preorder",
    merchantCode: "offer-1",
    options: ["Preorder"],
    productVariantsCount: { count, precision: "EXACT" },
    sellingPlans: { nodes: [{ id: "gid://shopify/SellingPlan/1", name: "Preorder", category: "PRE_ORDER" }] },
  });
  const variantIds = (n: number) => Array.from({ length: n }, (_, i) => `gid://shopify/ProductVariant/${i + 1}`);

  it("turns userErrors into a PlatformError naming the mutation and the field", async () => {
    const fake = await FakePlatform.start(() => ({
      data: {
        sellingPlanGroupCreate: {
          sellingPlanGroup: null,
          userErrors: [{ field: ["resources", "productVariantIds", "0"], message: "variant gid://shopify/ProductVariant/9 does not exist", code: "NOT_FOUND" }],
        },
      },
    }));
    const error = await rejection(createSellingPlanGroup(fake.client(), { name: "Preorder" }, ["gid://shopify/ProductVariant/9"]));

    expect(error.kind).toBe("user_errors");
    expect(error.message).toBe("sellingPlanGroupCreate: variant gid://shopify/ProductVariant/9 does not exist (resources.productVariantIds.0)");
    expect(error.userErrors).toEqual([
      { field: ["resources", "productVariantIds", "0"], message: "variant gid://shopify/ProductVariant/9 does not exist" },
    ]);
  });

  it("names the input of a metafieldsSet error by its place in the whole list, from the path when elementIndex is null (as the platform mostly answers)", async () => {
    // The second call (inputs 25..29) answers an error on its own input 1, the platform's way: elementIndex null.
    const fake = await FakePlatform.start((_, i) =>
      i === 0
        ? { data: { metafieldsSet: { metafields: [], userErrors: [] } } }
        : { data: { metafieldsSet: { metafields: null, userErrors: [{ field: ["metafields", "1", "type"], message: "Type can't be blank", code: "BLANK", elementIndex: null }] } } },
    );
    const inputs = Array.from({ length: 30 }, (_, i) => ({ ownerId: `gid://shopify/ProductVariant/${i + 1}`, namespace: "$app:preorder", key: "offer", type: "json", value: "{}" }));
    const error = await rejection(setMetafields(fake.client(), inputs));
    expect(error.message).toBe("metafieldsSet: Type can't be blank (metafields.26.type)");
  });

  it("expectNoUserErrors passes a clean payload through", () => {
    const payload = { userErrors: [], node: { id: "x" } };
    expect(expectNoUserErrors(payload, "tagsAdd")).toBe(payload);
    expect(() => expectNoUserErrors({ userErrors: [{ field: null, message: "Tag is too long" }] }, "tagsAdd")).toThrow("tagsAdd: Tag is too long");
  });

  it("chunks arrays to the platform's limit of 250", () => {
    expect(chunk([])).toEqual([]);
    expect(chunk(variantIds(600)).map((part) => part.length)).toEqual([250, 250, 100]);
    expect(chunk([1, 2, 3], 2)).toEqual([[1, 2], [3]]);
  });

  it("adds 600 variants in 3 calls of at most 250", async () => {
    let members = 0;
    const fake = await FakePlatform.start((body) => {
      members += (body.variables.productVariantIds as string[]).length;
      return { data: { sellingPlanGroupAddProductVariants: { sellingPlanGroup: group(members), userErrors: [] } } };
    });
    const result = await addVariantsToSellingPlanGroup(fake.client(), "gid://shopify/SellingPlanGroup/1", variantIds(600));

    expect(fake.seen.map((s) => (s.body.variables.productVariantIds as string[]).length)).toEqual([250, 250, 100]);
    expect(fake.seen.flatMap((s) => s.body.variables.productVariantIds as string[])).toEqual(variantIds(600));
    expect(result?.productVariantsCount).toBe(600);
  });

  it("creates a group with its first 250 variants and adds the rest", async () => {
    let members = 0;
    const fake = await FakePlatform.start((body) => {
      if (body.query.includes("sellingPlanGroupCreate(")) {
        const resources = body.variables.resources as { productVariantIds: string[] };
        members = resources.productVariantIds.length;
        return { data: { sellingPlanGroupCreate: { sellingPlanGroup: group(members), userErrors: [] } } };
      }
      members += (body.variables.productVariantIds as string[]).length;
      return { data: { sellingPlanGroupAddProductVariants: { sellingPlanGroup: group(members), userErrors: [] } } };
    });
    const created = await createSellingPlanGroup(fake.client(), { name: "Preorder", merchantCode: "offer-1" }, variantIds(300));

    expect(fake.seen.map((s) => s.body.query.match(/mutation (\w+)/)?.[1])).toEqual([
      "SellingPlanGroupCreate",
      "SellingPlanGroupAddProductVariants",
    ]);
    expect(created.productVariantsCount).toBe(300);
  });

  it("deletes a half-created group when adding its remaining variants fails", async () => {
    const fake = await FakePlatform.start((body) => {
      if (body.query.includes("sellingPlanGroupCreate(")) return { data: { sellingPlanGroupCreate: { sellingPlanGroup: group(250), userErrors: [] } } };
      if (body.query.includes("sellingPlanGroupDelete(")) {
        return { data: { sellingPlanGroupDelete: { deletedSellingPlanGroupId: "gid://shopify/SellingPlanGroup/1", userErrors: [] } } };
      }
      return { data: { sellingPlanGroupAddProductVariants: { sellingPlanGroup: null, userErrors: [{ field: null, message: "boom" }] } } };
    });
    const error = await rejection(createSellingPlanGroup(fake.client(), { name: "Preorder" }, variantIds(300)));

    expect(error.message).toBe("sellingPlanGroupAddProductVariants: boom");
    expect(fake.seen.map((s) => s.body.query.match(/mutation (\w+)/)?.[1])).toEqual([
      "SellingPlanGroupCreate",
      "SellingPlanGroupAddProductVariants",
      "SellingPlanGroupDelete",
    ]);
  });

  it("removes variants in chunks and collects the removed ids", async () => {
    const fake = await FakePlatform.start((body) => ({
      data: {
        sellingPlanGroupRemoveProductVariants: { removedProductVariantIds: body.variables.productVariantIds, userErrors: [] },
      },
    }));
    const removed = await removeVariantsFromSellingPlanGroup(fake.client(), "gid://shopify/SellingPlanGroup/1", variantIds(251));
    expect(fake.seen).toHaveLength(2);
    expect(removed).toEqual(variantIds(251));
  });

  it("sends many tags in chunks of 250, deduplicated", async () => {
    const fake = await FakePlatform.start(() => ({ data: { tagsAdd: { userErrors: [] } } }));
    const tags = Array.from({ length: 300 }, (_, i) => `tag-${i}`);
    await addCustomerTags(fake.client(), "gid://shopify/Customer/1", [...tags, "tag-0", " "]);

    expect(fake.seen.map((s) => (s.body.variables.tags as string[]).length)).toEqual([250, 50]);
    expect(fake.seen.every((s) => s.body.query.includes("tagsAdd(") && s.body.variables.id === "gid://shopify/Customer/1")).toBe(true);
  });

  it("pages a connection by cursor, yielding page by page", async () => {
    const all = Array.from({ length: 7 }, (_, i) => ({ id: `gid://shopify/Product/${i + 1}` }));
    const fake = await FakePlatform.start((body) => {
      const { first, after } = body.variables as { first: number; after: string | null };
      const start = after === null ? 0 : Number(after);
      const nodes = all.slice(start, start + first);
      const end = start + nodes.length;
      return { data: { products: { nodes, pageInfo: { hasNextPage: end < all.length, endCursor: String(end) } } } };
    });
    const query = "query Products($first: Int, $after: String) { products(first: $first, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }";
    const select = (data: unknown) => (data as { products: { nodes: { id: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } }).products;
    const pages = await collectPages(paginate(fake.client(), query, {}, select, 3));

    expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(all);
    expect(fake.seen.map((s) => s.body.variables.after)).toEqual([null, "3", "6"]);
  });

  it("refuses a connection whose cursor does not advance", async () => {
    const fake = await FakePlatform.start(() => ({ data: { products: { nodes: [{ id: "a" }], pageInfo: { hasNextPage: true, endCursor: "same" } } } }));
    const select = (data: unknown) => (data as { products: { nodes: { id: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } }).products;
    const error = await rejection(collect(paginate(fake.client(), "query P($first: Int, $after: String) { x }", {}, select)));
    expect(error.message).toBe("Pagination did not advance past cursor same");
    expect(fake.seen).toHaveLength(2);
  });
});

async function collectPages<T>(pages: AsyncIterable<T[]>): Promise<T[][]> {
  const all: T[][] = [];
  for await (const page of pages) all.push(page);
  return all;
}

/** Polls a condition the test itself drives (no timing assumption beyond "eventually"). */
async function waitUntil(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

describe("against the platform emulator", () => {
  // 100 products x 4 variants: 400 variants, enough for a 300-variant group.
  const SEEDED_VARIANTS = 400;
  let emulator: Emulator;

  beforeAll(async () => {
    emulator = await startEmulator({ seed: { products: 100, variantsPerProduct: 4 } });
  });
  afterAll(async () => {
    await emulator.close();
  });
  afterEach(() => {
    emulator.setFaults({});
    emulator.setThrottle({ maximumAvailable: 2000, restoreRate: 100, maxQueryCost: 1000 });
  });

  const client = (options: Partial<PlatformClientOptions> = {}) =>
    new PlatformClient({ graphqlUrl: emulator.graphqlUrl, accessToken: emulator.accessToken, minRetryDelayMs: 1, maxRetryDelayMs: 20, ...options });

  const VARIANTS = `query VariantIds($first: Int, $after: String) {
    productVariants(first: $first, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } }
  }`;
  const selectVariants = (data: unknown) =>
    (data as { productVariants: { nodes: { id: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } }).productVariants;
  const allVariantIds = (c: PlatformClient, pageSize: number) => collect(paginate(c, VARIANTS, {}, selectVariants, pageSize)).then((nodes) => nodes.map((n) => n.id));

  it("pages productVariants through every seeded variant", async () => {
    const c = client();
    const ids = await allVariantIds(c, 30);
    expect(ids).toHaveLength(SEEDED_VARIANTS);
    expect(new Set(ids).size).toBe(SEEDED_VARIANTS);
    expect(c.stats.requests).toBe(Math.ceil(SEEDED_VARIANTS / 30));
  });

  it("paces itself under a small bucket: nothing throttled, everything completes", async () => {
    // A page of 25 ids costs 27 points; 26 of them are several times the 100-point bucket.
    emulator.setThrottle({ maximumAvailable: 100, restoreRate: 500 });
    const before = emulator.stats();
    const c = client();
    const ids = await allVariantIds(c, 25);
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => c.request(VARIANTS, { first: 25, after: null })));
    const after = emulator.stats();

    expect(ids).toHaveLength(SEEDED_VARIANTS);
    expect(concurrent).toHaveLength(10);
    expect(after.requests - before.requests).toBe(26);
    expect(after.throttled - before.throttled).toBe(0);
    expect(c.stats.throttled).toBe(0);
    expect(after.costSpent - before.costSpent).toBeGreaterThan(100);
  });

  it("retries injected THROTTLED answers and 5xx to completion", async () => {
    emulator.setFaults({ throttleRate: 0.5, errorRate: 0.3 });
    const before = emulator.stats();
    // Each attempt succeeds with probability 0.35: 30 attempts make giving up a one-in-400,000 event.
    const c = client({ maxAttempts: 30 });
    const ids = await allVariantIds(c, 50);
    const after = emulator.stats();

    expect(new Set(ids).size).toBe(SEEDED_VARIANTS);
    expect(after.throttled - before.throttled).toBeGreaterThan(0);
    expect(after.serverErrors - before.serverErrors).toBeGreaterThan(0);
    expect(c.stats.throttled + c.stats.serverErrors).toBe(c.stats.retries);
    expect(c.stats.retries).toBeGreaterThan(0);
  });

  it("gives a clear error after the last attempt when every answer is a 5xx", async () => {
    emulator.setFaults({ errorRate: 1 });
    const c = client({ maxAttempts: 3 });
    const error = await rejection(c.request(VARIANTS, { first: 10, after: null }));

    expect(error).toMatchObject({ kind: "http", attempts: 3 });
    expect([502, 503]).toContain(error.status);
    expect(error.message).toMatch(/^Platform VariantIds failed after 3 attempts: HTTP 50[23] /);
    expect(c.stats).toMatchObject({ requests: 3, serverErrors: 3, retries: 2 });
  });

  it("refuses a query dearer than the platform allows, without retrying", async () => {
    const c = client();
    // Pages of 250 in pages of 250 in pages of 250: 2 + 11 × (1 + 2 + 11 × (1 + 2 + 11)) = 1729 points, above the 1000-point cap.
    const dear = "query Dear($first: Int) { products(first: $first) { nodes { id variants(first: 250) { nodes { id metafields(first: 250) { nodes { id } } } } } } }";
    const error = await rejection(c.request(dear, { first: 250 }));
    expect(error).toMatchObject({ kind: "graphql", attempts: 1 });
    expect(c.stats.requests).toBe(1);
    expect(error.message).toContain("MAX_COST_EXCEEDED");
  });

  it("creates a selling plan group with 300 variants in chunks, all members; updates, removes, deletes", async () => {
    const variantIds = (await allVariantIds(client(), 250)).slice(0, 300);
    const c = client();
    const group = await createSellingPlanGroup(
      c,
      {
        name: "Preorder",
        merchantCode: "offer-300",
        options: ["Preorder"],
        sellingPlansToCreate: [
          {
            name: "Preorder: 50% now",
            options: ["50% deposit"],
            category: "PRE_ORDER",
            billingPolicy: {
              fixed: {
                checkoutCharge: { type: "PERCENTAGE", value: { percentage: 50 } },
                remainingBalanceChargeTrigger: "EXACT_TIME",
                remainingBalanceChargeExactTime: "2026-12-01T00:00:00Z",
              },
            },
            deliveryPolicy: { fixed: { fulfillmentTrigger: "EXACT_TIME", fulfillmentExactTime: "2026-12-01T00:00:00Z" } },
            inventoryPolicy: { reserve: "ON_FULFILLMENT" },
          },
        ],
      },
      variantIds,
    );

    expect(c.stats.requests).toBe(2);
    expect(group.productVariantsCount).toBe(300);
    expect(group.sellingPlans.nodes).toMatchObject([{ name: "Preorder: 50% now", category: "PRE_ORDER" }]);
    const members = await collect(sellingPlanGroupVariantIds(c, group.id));
    expect(new Set(members)).toEqual(new Set(variantIds));

    const removed = await removeVariantsFromSellingPlanGroup(c, group.id, variantIds.slice(0, 100));
    expect(new Set(removed)).toEqual(new Set(variantIds.slice(0, 100)));
    const updated = await updateSellingPlanGroup(c, group.id, { name: "Preorder (renamed)" });
    expect(updated.group).toMatchObject({ name: "Preorder (renamed)", productVariantsCount: 200 });

    expect(await deleteSellingPlanGroup(c, group.id)).toBe(group.id);
    expect(await getSellingPlanGroup(c, group.id)).toBeNull();
  });

  it("reports a selling plan group's user errors clearly", async () => {
    const error = await rejection(
      createSellingPlanGroup(client(), { name: "Preorder", merchantCode: "bad", options: ["Preorder"] }, ["gid://shopify/ProductVariant/1"]),
    );
    expect(error.kind).toBe("user_errors");
    expect(error.message).toMatch(/^sellingPlanGroupCreate: .*gid:\/\/shopify\/ProductVariant\/1.*\(resources\.productVariantIds\)$/);
    expect(error.userErrors?.length).toBeGreaterThan(0);
  });

  it("adds and removes customer tags without touching the others", async () => {
    const seeded = emulator.store.customers[0];
    if (!seeded) throw new Error("the emulator seeded no customer");
    seeded.tags = ["vip", "wholesale"];
    const id = `gid://shopify/Customer/${seeded.id}`;
    const c = client();

    await addCustomerTags(c, id, ["back-in-stock", "vip"]);
    expect((await getCustomer(c, id))?.tags.toSorted()).toEqual(["back-in-stock", "vip", "wholesale"]);
    await removeCustomerTags(c, id, ["back-in-stock"]);
    expect((await getCustomer(c, id))?.tags.toSorted()).toEqual(["vip", "wholesale"]);
  });

  it("reads live inventory levels per location, in batches within the cost cap", async () => {
    const variantIds = (await allVariantIds(client(), 250)).slice(0, 60);
    const target = emulator.store.activeLocations()[1] ?? emulator.store.activeLocations()[0];
    if (!target || !variantIds[5]) throw new Error("the emulator seeded no active location");
    const response = await fetch(`${emulator.origin}/admin/inventory`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ variant_id: variantIds[5], available: 7, location_id: target.id }),
    });
    expect(response.status).toBe(200);

    const c = client();
    const levels = await getInventoryLevels(c, [...variantIds, "gid://shopify/ProductVariant/1"]);
    expect(levels.map((l) => l.variantId)).toEqual(variantIds);
    // 10 locations each make a variant cost 34 points: 29 per query under the 1000-point cap.
    expect(c.stats.requests).toBe(3);
    const changed = levels[5]?.levels.find((l) => l.locationId === `gid://shopify/Location/${target.id}`);
    expect(changed?.available).toBe(7);
    expect(levels.every((l) => l.levels.length === emulator.store.activeLocations().length)).toBe(true);
  });

  it("sets metafields 25 per call, reads them back, reports an element's error at its index in the whole list, and deletes them", async () => {
    const variantIds = (await allVariantIds(client(), 250)).slice(0, 60);
    const c = client();
    const inputs = variantIds.map((ownerId, i) => ({ ownerId, namespace: "$app:preorder", key: "config", type: "json", value: JSON.stringify({ i }) }));
    const set = await setMetafields(c, inputs);
    expect(c.stats.requests).toBe(3);
    expect(set).toHaveLength(60);
    expect(new Set(set.map((m) => m.namespace))).toEqual(new Set([`app--${emulator.appId}--preorder`]));

    const read = await getOwnerMetafields(c, [...variantIds, "gid://shopify/ProductVariant/1"], "$app:preorder", "config");
    expect(read.get(variantIds[59] ?? "")?.value).toBe('{"i":59}');
    expect(read.get("gid://shopify/ProductVariant/1")).toBeNull();

    const bad = inputs.map((input, i) => (i === 30 ? { ...input, value: "{" } : input));
    const error = await rejection(setMetafields(client(), bad));
    expect(error.kind).toBe("user_errors");
    expect(error.message).toBe("metafieldsSet: Value must be valid JSON. (metafields.30.value)");

    const identifiers = variantIds.map((ownerId) => ({ ownerId, namespace: "$app:preorder", key: "config" }));
    expect(await deleteMetafields(c, [...identifiers, { ownerId: "gid://shopify/ProductVariant/1", namespace: "$app:preorder", key: "config" }])).toHaveLength(60);
    expect([...(await getOwnerMetafields(c, variantIds, "$app:preorder", "config")).values()].every((m) => m === null)).toBe(true);
  });

  it("sets, reads and deletes a metafield on the shop (its owner id from shop { id }); a shop id of another shop is no owner", async () => {
    const c = client();
    const before = await getShopMetafield(c, "$app:preorder", "shop");
    expect(before).toEqual({ shopId: "gid://shopify/Shop/1", metafield: null });
    await setMetafields(c, [{ ownerId: before.shopId, namespace: "$app:preorder", key: "shop", type: "json", value: '{"version":1}' }]);
    const after = await getShopMetafield(c, "$app:preorder", "shop");
    expect(after.metafield).toMatchObject({ namespace: `app--${emulator.appId}--preorder`, key: "shop", value: '{"version":1}', ownerType: "SHOP" });

    const error = await rejection(setMetafields(c, [{ ownerId: "gid://shopify/Shop/2", namespace: "$app:preorder", key: "shop", type: "json", value: "{}" }]));
    expect(error.message).toBe("metafieldsSet: Owner gid://shopify/Shop/2 does not exist. (metafields.0.ownerId)");

    expect(await deleteMetafields(c, [{ ownerId: before.shopId, namespace: "$app:preorder", key: "shop" }])).toHaveLength(1);
    expect((await getShopMetafield(c, "$app:preorder", "shop")).metafield).toBeNull();
  });

  it("reads an order's fulfillment orders, holds part of one (the rest split off OPEN), reports user errors, and releases only the named hold", async () => {
    const variantIds = (await allVariantIds(client(), 250)).slice(0, 2);
    const created = await fetch(`${emulator.origin}/admin/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ line_items: variantIds.map((variant_id, i) => ({ variant_id, quantity: i + 1 })), email: "hold@example.com" }),
    });
    const { order } = (await created.json()) as { order: { admin_graphql_api_id: string } };
    const c = client();
    const [open] = (await getFulfillmentOrders(c, order.admin_graphql_api_id)) ?? [];
    expect(open).toMatchObject({ status: "OPEN", fulfillmentHolds: [] });
    expect(open?.lineItems.map((l) => l.remainingQuantity)).toEqual([1, 2]);
    const first = open?.lineItems[0];

    const held = await holdFulfillmentOrder(c, open?.id ?? "", {
      reason: "INVENTORY_OUT_OF_STOCK",
      reasonNotes: "Not in stock yet",
      handle: "preorder-x",
      fulfillmentOrderLineItems: [{ id: first?.id ?? "", quantity: 1 }],
    });
    expect(held).toMatchObject({ fulfillmentOrder: { id: open?.id, status: "ON_HOLD" }, remainingFulfillmentOrder: { status: "OPEN" }, fulfillmentHold: { reasonNotes: "Not in stock yet" } });
    const after = (await getFulfillmentOrders(c, order.admin_graphql_api_id)) ?? [];
    expect(after.map((f) => [f.status, f.lineItems.map((l) => l.lineItem.id)])).toEqual([
      ["ON_HOLD", [first?.lineItem.id]],
      ["OPEN", [open?.lineItems[1]?.lineItem.id]],
    ]);
    expect(after[0]?.fulfillmentHolds).toEqual([{ id: held.fulfillmentHold.id, handle: "preorder-x", reason: "INVENTORY_OUT_OF_STOCK", reasonNotes: "Not in stock yet", heldByRequestingApp: true }]);

    const duplicate = await rejection(holdFulfillmentOrder(c, open?.id ?? "", { reason: "OTHER", handle: "preorder-x" }));
    expect(duplicate.kind).toBe("user_errors");
    expect(duplicate.message).toMatch(/^fulfillmentOrderHold: The handle provided for the fulfillment hold is already in use .* \(fulfillmentHold\.handle\)$/);
    const merchant = await holdFulfillmentOrder(c, open?.id ?? "", { reason: "OTHER", handle: "merchant" });

    expect(await releaseFulfillmentOrderHolds(c, open?.id ?? "", [held.fulfillmentHold.id])).toEqual({ id: open?.id, status: "ON_HOLD" });
    expect(await releaseFulfillmentOrderHolds(c, open?.id ?? "", [merchant.fulfillmentHold.id])).toEqual({ id: open?.id, status: "OPEN" });
    expect(await getFulfillmentOrders(c, "gid://shopify/Order/1")).toBeNull();
  });

  it("splits a fulfillment order, edits an order's quantities down and completes a draft order into an order, with their user errors", async () => {
    const variantIds = (await allVariantIds(client(), 250)).slice(0, 2);
    const created = await fetch(`${emulator.origin}/admin/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ line_items: variantIds.map((variant_id) => ({ variant_id, quantity: 2 })), email: "split@example.com" }),
    });
    const { order } = (await created.json()) as { order: { admin_graphql_api_id: string } };
    const c = client();
    const [open] = (await getFulfillmentOrders(c, order.admin_graphql_api_id)) ?? [];
    const [first, second] = open?.lineItems ?? [];
    if (!open || !first || !second) throw new Error("no fulfillment order");

    const tooMany = await rejection(splitFulfillmentOrder(c, open.id, [{ id: first.id, quantity: 3 }]));
    expect(tooMany.message).toBe("fulfillmentOrderSplit: The fulfillment order line item quantity is invalid. (fulfillmentOrderSplits.0.fulfillmentOrderLineItems.0.quantity)");
    expect((await rejection(splitFulfillmentOrder(c, open.id, [{ id: first.id, quantity: 0 }]))).kind).toBe("user_errors");
    const moved = await splitFulfillmentOrder(c, open.id, [{ id: first.id, quantity: 2 }]);
    expect(moved.status).toBe("OPEN");
    expect(((await getFulfillmentOrders(c, order.admin_graphql_api_id)) ?? []).map((f) => [f.id === open.id, f.lineItems.map((l) => l.lineItem.id)])).toEqual([
      [true, [second.lineItem.id]],
      [false, [first.lineItem.id]],
    ]);

    await editOrderQuantities(c, order.admin_graphql_api_id, [{ lineItemId: first.lineItem.id, quantity: 0 }], "moved");
    const lines = await getOrderLineQuantities(c, order.admin_graphql_api_id);
    expect(lines?.lines.map((l) => [l.quantity, l.currentQuantity])).toEqual([
      [2, 0],
      [2, 2],
    ]);
    const raise = await rejection(editOrderQuantities(c, order.admin_graphql_api_id, [{ lineItemId: second.lineItem.id, quantity: 5 }], "up"));
    expect(raise.kind).toBe("user_errors");

    const draftId = await createDraftOrder(c, { lineItems: [{ variantId: variantIds[0] ?? "", quantity: 2 }], tags: ["preorder-split"], poNumber: "#1001-P", customAttributes: [{ key: "_preorder_split_of", value: order.admin_graphql_api_id }] });
    expect((await rejection(completeDraftOrder(c, draftId, "gid://shopify/PaymentGateway/99"))).message).toBe("draftOrderComplete: Invalid payment gateway");
    const completed = await completeDraftOrder(c, draftId, "gid://shopify/PaymentGateway/2");
    expect(await getDraftOrder(c, draftId)).toEqual({ id: draftId, status: "COMPLETED", order: completed });
    const made = emulator.store.order(Number(completed.id.split("/").pop()));
    expect(made).toMatchObject({ tags: ["preorder-split"], poNumber: "#1001-P", paymentGatewayNames: ["bogus"], customAttributes: [{ key: "_preorder_split_of", value: order.admin_graphql_api_id }] });
    expect((await rejection(completeDraftOrder(c, draftId, null))).message).toBe("draftOrderComplete: This order has been paid");
    expect((await rejection(createDraftOrder(c, { lineItems: [] }))).kind).toBe("user_errors");
    // A priceOverride replaces the catalog price; in another currency than the draft's it is refused (the emulator has no rates).
    const priced = await completeDraftOrder(c, await createDraftOrder(c, { lineItems: [{ variantId: variantIds[0] ?? "", quantity: 1, priceOverride: { amount: "3.50", currencyCode: "USD" } }] }), null);
    expect(emulator.store.order(Number(priced.id.split("/").pop()))?.lineItems.map((l) => l.priceCents)).toEqual([350]);
    expect((await rejection(createDraftOrder(c, { lineItems: [{ variantId: variantIds[0] ?? "", quantity: 1, priceOverride: { amount: "3.50", currencyCode: "EUR" } }] }))).message).toContain("priceOverride");
  });

  it("reads orders one by one and incrementally by update time", async () => {
    const variantIds = (await allVariantIds(client(), 250)).slice(0, 2);
    const since = new Date(Date.now() - 1000);
    const created = await fetch(`${emulator.origin}/admin/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ line_items: variantIds.map((variant_id) => ({ variant_id, quantity: 2 })), email: "ada@example.com" }),
    });
    expect(created.status).toBe(201);
    const { order } = (await created.json()) as { order: { admin_graphql_api_id: string } };
    const c = client();

    const fetched = await getOrder(c, order.admin_graphql_api_id);
    expect(fetched).toMatchObject({ id: order.admin_graphql_api_id, email: "ada@example.com" });
    expect(fetched?.lineItems.map((l) => l.variant?.id)).toEqual(variantIds);
    expect(fetched?.lineItems.every((l) => l.quantity === 2)).toBe(true);

    const recent = (await collect(listOrders(c, { updatedSince: since }))).map((o) => o.id);
    expect(recent).toContain(order.admin_graphql_api_id);
    const future = await collect(listOrders(c, { updatedSince: new Date(Date.now() + 60_000) }));
    expect(future).toEqual([]);
    expect(await getOrder(c, "gid://shopify/Order/1")).toBeNull();
  });
});
