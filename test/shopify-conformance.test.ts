import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_API_VERSION } from "../src/platform/api-version.ts";
import { collectionPages, inventoryPages, locationPages, marketPages, productPages, variantPages } from "../src/platform/catalog.ts";
import { PlatformClient } from "../src/platform/client.ts";
import { type Emulator, startEmulator } from "../src/platform/emulator/index.ts";
import { PlatformError } from "../src/platform/errors.ts";
import { getAccessScopes } from "../src/platform/operations/app.ts";
import { deleteMetafields, getShopMetafield, setMetafields } from "../src/platform/operations/metafields.ts";
import { listOrders } from "../src/platform/operations/orders.ts";
import { createSellingPlanGroup, deleteSellingPlanGroup, getSellingPlanGroup, type SellingPlanGroupInput } from "../src/platform/operations/selling-plans.ts";

/**
 * The same checks against the emulator (always) and against a real Shopify store (when
 * SHOPIFY_STORE_DOMAIN and SHOPIFY_ADMIN_TOKEN are set): the service's own client and operations
 * send their read-only queries, and every answer must parse with the service's own parsers. With
 * SHOPIFY_CONFORMANCE_WRITES=1 too, a write round trip on the store (a development store: it
 * creates a selling plan group and an app metafield, and deletes both). Written against the
 * operations' functions, not their documents: whatever a document selects, its parser must take
 * what the store answers.
 */

interface Target {
  name: string;
  graphqlUrl: string;
  accessToken: string;
  writes: boolean;
}

/** `example.myshopify.com`, or with a scheme: `http://127.0.0.1:3100` reaches a local proxy (or `npm run emulator`). */
const STORE_ORIGIN = process.env.SHOPIFY_STORE_DOMAIN?.trim().replace(/\/+$/, "");
const STORE_TOKEN = process.env.SHOPIFY_ADMIN_TOKEN?.trim();
const realStore: Target | undefined =
  STORE_ORIGIN && STORE_TOKEN
    ? {
        name: STORE_ORIGIN,
        graphqlUrl: `${/^https?:\/\//.test(STORE_ORIGIN) ? STORE_ORIGIN : `https://${STORE_ORIGIN}`}/admin/api/${ADMIN_API_VERSION}/graphql.json`,
        accessToken: STORE_TOKEN,
        writes: process.env.SHOPIFY_CONFORMANCE_WRITES === "1",
      }
    : undefined;

if (!realStore) {
  console.log("shopify-conformance: no real store (set SHOPIFY_STORE_DOMAIN and SHOPIFY_ADMIN_TOKEN to run it, SHOPIFY_CONFORMANCE_WRITES=1 for the write round trip); running against the emulator only");
}

const GID = (type: string) => new RegExp(`^gid://shopify/${type}/\\d+$`);

/** The first page of a paged read, or none: the generator is closed after it. */
async function firstPage<T>(pages: AsyncGenerator<T[]>): Promise<T[]> {
  for await (const page of pages) return page;
  return [];
}

async function refusal(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

function conformance(target: () => Target): void {
  let client: PlatformClient;
  beforeAll(() => {
    client = new PlatformClient({ graphqlUrl: target().graphqlUrl, accessToken: target().accessToken });
  });

  describe("read-only operations", () => {
    it("the app's access scopes", async () => {
      const scopes = await getAccessScopes(client);
      expect(scopes.length).toBeGreaterThan(0);
      for (const scope of scopes) expect(scope).toMatch(/^[a-z_]+$/);
    });

    it("the shop (through a shop metafield of the app's namespace) and the cost extension the client paces on", async () => {
      const { shopId } = await getShopMetafield(client, "$app:conformance", "probe");
      expect(shopId).toMatch(GID("Shop"));
      const status = client.bucket.snapshot();
      expect(status?.maximumAvailable).toBeGreaterThan(0);
      expect(status?.restoreRate).toBeGreaterThan(0);
    });

    it("a page of products, of variants, of collections", async () => {
      for (const product of await firstPage(productPages(client))) expect(product.id).toMatch(GID("Product"));
      for (const variant of await firstPage(variantPages(client))) expect(variant.id).toMatch(GID("ProductVariant"));
      for (const collection of await firstPage(collectionPages(client))) expect(collection.id).toMatch(GID("Collection"));
    });

    it("locations, a location's inventory levels, markets", async () => {
      const locations = await firstPage(locationPages(client));
      expect(locations.length).toBeGreaterThan(0);
      for (const location of locations) expect(location.id).toMatch(GID("Location"));
      const first = locations[0];
      if (first) await firstPage(inventoryPages(client, first.id));
      const markets = await firstPage(marketPages(client));
      for (const market of markets) expect(market.id).toMatch(GID("Market"));
    });

    it("a page of orders with their line items", async () => {
      const orders = await firstPage(listOrders(client, { pageSize: 5, lineItemsPerOrder: 5 }));
      for (const order of orders) expect(order.id).toMatch(GID("Order"));
    });
  });

  describe("refusals", () => {
    it("a wrong access token: 401, not retried", async () => {
      const wrong = new PlatformClient({ graphqlUrl: target().graphqlUrl, accessToken: "shpat_not_a_token" });
      expect(await refusal(getAccessScopes(wrong))).toMatchObject({ kind: "auth", status: 401, attempts: 1 });
    });

    it("an API version that does not exist: 404, not retried", async () => {
      const nowhere = new PlatformClient({ graphqlUrl: target().graphqlUrl.replace(`/${ADMIN_API_VERSION}/`, "/2026-13/"), accessToken: target().accessToken });
      expect(await refusal(getAccessScopes(nowhere))).toMatchObject({ kind: "not_found", status: 404, attempts: 1 });
    });
  });

  describe("write round trip", () => {
    it("a selling plan group with one variant: created, read back, deleted", async (context) => {
      if (!target().writes) return context.skip();
      const [variant] = await firstPage(variantPages(client));
      if (!variant) return context.skip();
      const code = `conformance-${Date.now()}`;
      const input: SellingPlanGroupInput = {
        name: "Conformance preorder",
        merchantCode: code,
        options: ["Preorder"],
        sellingPlansToCreate: [
          {
            name: "Pay in full",
            options: ["Pay in full"],
            category: "PRE_ORDER",
            billingPolicy: { fixed: { checkoutCharge: { type: "PERCENTAGE", value: { percentage: 100 } }, remainingBalanceChargeTrigger: "NO_REMAINING_BALANCE" } },
            deliveryPolicy: { fixed: { fulfillmentTrigger: "UNKNOWN" } },
            inventoryPolicy: { reserve: "ON_FULFILLMENT" },
          },
        ],
      };
      const created = await createSellingPlanGroup(client, input, [variant.id]);
      try {
        expect(created.id).toMatch(GID("SellingPlanGroup"));
        const read = await getSellingPlanGroup(client, created.id);
        expect(read).toMatchObject({ id: created.id, merchantCode: code });
      } finally {
        expect(await deleteSellingPlanGroup(client, created.id)).toBe(created.id);
      }
      expect(await getSellingPlanGroup(client, created.id)).toBeNull();
    });

    it("an app metafield on the shop: set, read back, deleted", async (context) => {
      if (!target().writes) return context.skip();
      const { shopId } = await getShopMetafield(client, "$app:conformance", "probe");
      const value = JSON.stringify({ at: new Date().toISOString() });
      const [set] = await setMetafields(client, [{ ownerId: shopId, namespace: "$app:conformance", key: "probe", type: "json", value }]);
      try {
        expect(set).toMatchObject({ key: "probe", type: "json" });
        expect((await getShopMetafield(client, "$app:conformance", "probe")).metafield).toMatchObject({ key: "probe" });
      } finally {
        expect(await deleteMetafields(client, [{ ownerId: shopId, namespace: "$app:conformance", key: "probe" }])).toHaveLength(1);
      }
      expect((await getShopMetafield(client, "$app:conformance", "probe")).metafield).toBeNull();
    });
  });
}

describe("conformance: the emulator", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: { products: 12 } });
    // An order to list: the emulator's admin route, as a merchant's checkout makes one.
    const response = await fetch(`${emulator.origin}/admin/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ line_items: [{ variant_id: emulator.store.variants[0]?.id, quantity: 1 }], email: "conformance@example.com" }),
    });
    expect(response.status).toBe(201);
  });
  afterAll(async () => {
    await emulator.close();
  });
  conformance(() => ({ name: "emulator", graphqlUrl: emulator.graphqlUrl, accessToken: emulator.accessToken, writes: true }));

  it("lists the order it was given (so the order checks above parsed one)", async () => {
    const client = new PlatformClient({ graphqlUrl: emulator.graphqlUrl, accessToken: emulator.accessToken });
    expect((await firstPage(listOrders(client, { pageSize: 5 }))).length).toBe(1);
  });
});

describe.skipIf(!realStore)(`conformance: the real store ${realStore?.name ?? "(SHOPIFY_STORE_DOMAIN and SHOPIFY_ADMIN_TOKEN unset)"}`, () => {
  conformance(() => realStore as Target);
});
