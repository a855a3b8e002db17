import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as catalog from "../src/platform/catalog.ts";
import { PlatformClient, type RequestOptions } from "../src/platform/client.ts";
import { type Emulator, startEmulator } from "../src/platform/emulator/index.ts";
import { getAccessScopes, getTranslations, sendFlowTrigger } from "../src/platform/operations/app.ts";
import { getCustomer } from "../src/platform/operations/customers.ts";
import { getFulfillmentOrders, holdFulfillmentOrder, releaseFulfillmentOrderHolds } from "../src/platform/operations/fulfillment-orders.ts";
import { getInventoryLevels } from "../src/platform/operations/inventory.ts";
import { deleteMetafields, getOwnerMetafields, getShopMetafield, setMetafields } from "../src/platform/operations/metafields.ts";
import {
  completeDraftOrder,
  createDraftOrder,
  editOrderQuantities,
  findOpenDraftOrder,
  getDraftOrder,
  getOrderLineQuantities,
  splitFulfillmentOrder,
} from "../src/platform/operations/order-splits.ts";
import { getOrder, getPaymentCollectionUrl, listOrders } from "../src/platform/operations/orders.ts";
import {
  addVariantsToSellingPlanGroup,
  createSellingPlanGroup,
  deleteSellingPlanGroup,
  getSellingPlanGroup,
  removeVariantsFromSellingPlanGroup,
  sellingPlanGroupVariantIds,
  updateSellingPlanGroup,
} from "../src/platform/operations/selling-plans.ts";
import { addTags, removeTags } from "../src/platform/operations/tags.ts";
import { getVariantPolicies, setVariantPolicies } from "../src/platform/operations/variant-policies.ts";
import { collect } from "../src/platform/paginate.ts";
import { deprecatedInputs, operationName, platformDocuments } from "./helpers/platform-documents.ts";

/**
 * Every operation the client can send (issue 29: all 44), sent through the emulator built on
 * Shopify's schema by the client's own functions, so each answer is read by the client's own
 * parser: a shape the real schema gives and the parser does not expect fails here. Each test
 * checks its operation was sent and that no request set a deprecated input field.
 */

interface Sent {
  operation: string;
  document: string;
  variables: Record<string, unknown>;
}

/** The client, recording what it sends. */
class RecordingClient extends PlatformClient {
  readonly sent: Sent[] = [];

  override request<T>(query: string, variables: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<T> {
    this.sent.push({ operation: operationName(query), document: query, variables });
    return super.request<T>(query, variables, options);
  }
}

let emulator: Emulator;
const client = () => new RecordingClient({ graphqlUrl: emulator.graphqlUrl, accessToken: emulator.accessToken, minRetryDelayMs: 1, maxRetryDelayMs: 20 });
const variantGid = (i: number) => `gid://shopify/ProductVariant/${emulator.store.variants[i]?.id}`;
const productGid = (i: number) => `gid://shopify/Product/${emulator.store.products[i]?.id}`;
const customerGid = (i: number) => `gid://shopify/Customer/${emulator.store.customers[i]?.id}`;

/** An order through the emulator's admin route (as checkout makes one); answers its gid. */
async function order(body: Record<string, unknown>): Promise<string> {
  const answer = await fetch(`${emulator.origin}/admin/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { order: { admin_graphql_api_id: string } }).order.admin_graphql_api_id;
}

const preorderGroup = (merchantCode: string) => ({
  name: "Preorder",
  merchantCode,
  options: ["Payment"],
  sellingPlansToCreate: [
    {
      name: "Deposit",
      options: ["Deposit"],
      category: "PRE_ORDER" as const,
      billingPolicy: { fixed: { checkoutCharge: { type: "PERCENTAGE" as const, value: { percentage: 20 } }, remainingBalanceChargeTrigger: "TIME_AFTER_CHECKOUT" as const, remainingBalanceChargeTimeAfterCheckout: "P30D" } },
      deliveryPolicy: { fixed: { fulfillmentTrigger: "ASAP" as const } },
      inventoryPolicy: { reserve: "ON_FULFILLMENT" as const },
      pricingPolicies: [{ fixed: { adjustmentType: "PERCENTAGE" as const, adjustmentValue: { percentage: 5 } } }],
    },
  ],
});

/** A group with one plan holding the first two variants: its id and its plan's. */
async function group(c: RecordingClient, merchantCode: string, variants = [variantGid(0), variantGid(1)]): Promise<{ id: string; planId: string }> {
  const created = await createSellingPlanGroup(c, preorderGroup(merchantCode), variants);
  return { id: created.id, planId: created.sellingPlans.nodes[0]?.id ?? "" };
}

/** An open fulfillment order of a new order of two lines: its id and its lines. */
async function openFulfillmentOrder(c: RecordingClient): Promise<{ orderId: string; id: string; lines: { id: string; remainingQuantity: number }[] }> {
  const orderId = await order({ line_items: [{ variant_id: variantGid(0), quantity: 2 }, { variant_id: variantGid(1), quantity: 1 }] });
  const [open] = (await getFulfillmentOrders(c, orderId)) ?? [];
  if (!open) throw new Error("no fulfillment order");
  return { orderId, id: open.id, lines: open.lineItems.map((l) => ({ id: l.id, remainingQuantity: l.remainingQuantity })) };
}

/** What each operation is sent by: a call of the client's function that sends it, with a check of what it read. */
const operations: Record<string, (c: RecordingClient) => Promise<void>> = {
  AppAccessScopes: async (c) => {
    expect(await getAccessScopes(c)).toContain("write_products");
  },
  FlowTriggerReceive: async (c) => {
    await sendFlowTrigger(c, "preorder-ready", { offer: "1" });
    expect(emulator.app.flowTriggers.at(-1)?.handle).toBe("preorder-ready");
  },
  ResourceTranslations: async (c) => {
    emulator.app.grant(["read_translations"]);
    emulator.app.translate(productGid(0), "fr", { title: "Le produit" });
    expect((await getTranslations(c, productGid(0), "fr"))?.get("title")).toBe("Le produit");
  },
  GetCustomer: async (c) => {
    const seeded = emulator.store.customers[0];
    expect(await getCustomer(c, customerGid(0))).toMatchObject({ id: customerGid(0), email: seeded?.email ?? null, phone: seeded?.phone ?? null });
  },
  OrderFulfillmentOrders: async (c) => {
    expect((await openFulfillmentOrder(c)).lines.map((l) => l.remainingQuantity)).toEqual([2, 1]);
  },
  FulfillmentOrderLineItems: async (c) => {
    // More lines than one fulfillment order's first page (40): the rest are read on their own.
    const orderId = await order({ line_items: Array.from({ length: 45 }, (_, i) => ({ variant_id: variantGid(i), quantity: 1 })) });
    const [open] = (await getFulfillmentOrders(c, orderId)) ?? [];
    expect(open?.lineItems).toHaveLength(45);
  },
  FulfillmentOrderHold: async (c) => {
    const open = await openFulfillmentOrder(c);
    const held = await holdFulfillmentOrder(c, open.id, { reason: "INVENTORY_OUT_OF_STOCK", handle: "preorder-hold" });
    expect(held.fulfillmentOrder.status).toBe("ON_HOLD");
  },
  FulfillmentOrderReleaseHold: async (c) => {
    const open = await openFulfillmentOrder(c);
    const held = await holdFulfillmentOrder(c, open.id, { reason: "INVENTORY_OUT_OF_STOCK", handle: "preorder-release" });
    expect(await releaseFulfillmentOrderHolds(c, open.id, [held.fulfillmentHold.id])).toEqual({ id: open.id, status: "OPEN" });
  },
  VariantInventoryLevels: async (c) => {
    const [levels] = await getInventoryLevels(c, [variantGid(0)]);
    expect(levels?.levels.length).toBeGreaterThan(0);
  },
  InventoryItemLevels: async (c) => {
    // One location per variant in the first query: the item's other levels are read on their own.
    const [levels] = await getInventoryLevels(c, [variantGid(0)], { locationsPerVariant: 1 });
    expect(levels?.levels).toHaveLength(emulator.store.activeLocations().length);
  },
  MetafieldsSet: async (c) => {
    const [set] = await setMetafields(c, [{ ownerId: variantGid(2), namespace: "$app:preorder", key: "offer-set", type: "json", value: '{"a":1}' }]);
    expect(set).toMatchObject({ key: "offer-set", value: '{"a":1}' });
  },
  MetafieldsDelete: async (c) => {
    await setMetafields(c, [{ ownerId: variantGid(3), namespace: "$app:preorder", key: "offer-delete", type: "json", value: "{}" }]);
    expect(await deleteMetafields(c, [{ ownerId: variantGid(3), namespace: "$app:preorder", key: "offer-delete" }])).toHaveLength(1);
  },
  OwnerMetafields: async (c) => {
    await setMetafields(c, [{ ownerId: variantGid(4), namespace: "$app:preorder", key: "offer-read", type: "json", value: '{"b":2}' }]);
    const found = await getOwnerMetafields(c, [variantGid(4), variantGid(5)], "$app:preorder", "offer-read");
    expect([found.get(variantGid(4))?.value, found.get(variantGid(5))]).toEqual(['{"b":2}', null]);
  },
  ShopMetafield: async (c) => {
    const { shopId, metafield } = await getShopMetafield(c, "$app:preorder", "shop-unset");
    expect([shopId, metafield]).toEqual(["gid://shopify/Shop/1", null]);
  },
  FulfillmentOrderSplit: async (c) => {
    const open = await openFulfillmentOrder(c);
    const line = open.lines[0];
    expect(await splitFulfillmentOrder(c, open.id, [{ id: line?.id ?? "", quantity: 1 }])).toMatchObject({ status: "OPEN" });
  },
  OrderLineQuantities: async (c) => {
    const orderId = await order({ line_items: [{ variant_id: variantGid(0), quantity: 3 }] });
    expect((await getOrderLineQuantities(c, orderId))?.lines).toEqual([expect.objectContaining({ quantity: 3, currentQuantity: 3, variantId: variantGid(0) })]);
  },
  ...Object.fromEntries(
    ["OrderEditBegin", "OrderEditSetQuantity", "OrderEditCommit"].map((name) => [
      name,
      async (c: RecordingClient) => {
        const orderId = await order({ line_items: [{ variant_id: variantGid(0), quantity: 3 }, { variant_id: variantGid(1), quantity: 1 }] });
        const lines = (await getOrderLineQuantities(c, orderId))?.lines ?? [];
        await editOrderQuantities(c, orderId, [{ lineItemId: lines[0]?.id ?? "", quantity: 0 }], "split off");
        expect((await getOrderLineQuantities(c, orderId))?.lines.map((l) => l.currentQuantity)).toEqual([0, 1]);
      },
    ]),
  ),
  ...Object.fromEntries(
    ["DraftOrderCreate", "DraftOrderComplete", "DraftOrder", "OpenDraftOrders"].map((name) => [
      name,
      async (c: RecordingClient) => {
        const poNumber = `#S-${name}`;
        const attribute = { key: "_split_of", value: name };
        const id = await createDraftOrder(c, {
          email: "split@example.com",
          purchasingEntity: { customerId: customerGid(1) },
          lineItems: [{ variantId: variantGid(6), quantity: 1, priceOverride: { amount: "12.50", currencyCode: "USD" } }],
          tags: ["preorder"],
          poNumber,
          customAttributes: [attribute],
        });
        expect(await findOpenDraftOrder(c, { poNumber, attribute, tag: "preorder" })).toBe(id);
        const completed = await completeDraftOrder(c, id, null);
        expect(await getDraftOrder(c, id)).toEqual({ id, status: "COMPLETED", order: completed });
        expect((await getOrder(c, completed.id))?.customer?.id).toBe(customerGid(1));
      },
    ]),
  ),
  GetOrder: async (c) => {
    const { planId } = await group(c, "get-order");
    const orderId = await order({ line_items: [{ variant_id: variantGid(0), quantity: 2, price: "10.00", selling_plan_id: planId }], customer_id: customerGid(2), financial_status: "partially_paid", amount_paid: "4.00" });
    const read = await getOrder(c, orderId);
    expect(read).toMatchObject({ id: orderId, displayFinancialStatus: "PARTIALLY_PAID", currencyCode: "USD", totalPrice: "20.00", totalOutstanding: "16.00", customer: { id: customerGid(2) } });
    expect(read?.lineItems).toEqual([expect.objectContaining({ quantity: 2, sellingPlanId: planId, originalUnitPrice: "10.00", variant: { id: variantGid(0) } })]);
  },
  ListOrders: async (c) => {
    const orderId = await order({ line_items: [{ variant_id: variantGid(0), quantity: 1 }] });
    const all = (await collect(listOrders(c, { updatedSince: new Date(0) }))).flat();
    expect(all.map((o) => o.id)).toContain(orderId);
  },
  OrderLineItems: async (c) => {
    // One line item read with each order: the rest of a two-line order are read on their own.
    const orderId = await order({ line_items: [{ variant_id: variantGid(0), quantity: 1 }, { variant_id: variantGid(1), quantity: 1 }] });
    const all = (await collect(listOrders(c, { lineItemsPerOrder: 1 }))).flat();
    expect(all.find((o) => o.id === orderId)?.lineItems).toHaveLength(2);
  },
  OrderPaymentCollectionUrl: async (c) => {
    const orderId = await order({ line_items: [{ variant_id: variantGid(0), quantity: 1, price: "30.00" }], financial_status: "partially_paid", amount_paid: "10.00" });
    expect(await getPaymentCollectionUrl(c, orderId)).toEqual({ url: expect.stringContaining("/pay?key=") as string, outstanding: "20.00" });
  },
  SellingPlanGroupCreate: async (c) => {
    const created = await createSellingPlanGroup(c, preorderGroup("create"), [variantGid(0)]);
    expect(created).toMatchObject({ merchantCode: "create", productVariantsCount: 1 });
    expect(created.sellingPlans.nodes).toEqual([expect.objectContaining({ name: "Deposit", category: "PRE_ORDER", billingPolicy: { remainingBalanceChargeTrigger: "TIME_AFTER_CHECKOUT" } })]);
  },
  SellingPlanGroupUpdate: async (c) => {
    const { id, planId } = await group(c, "update");
    const { group: updated } = await updateSellingPlanGroup(c, id, { name: "Preorder (renamed)", sellingPlansToUpdate: [{ id: planId, name: "Deposit (renamed)" }] });
    expect(updated).toMatchObject({ name: "Preorder (renamed)", productVariantsCount: 2 });
  },
  SellingPlanGroupDelete: async (c) => {
    const { id } = await group(c, "delete");
    expect(await deleteSellingPlanGroup(c, id)).toBe(id);
    expect(await getSellingPlanGroup(c, id)).toBeNull();
  },
  SellingPlanGroupAddProductVariants: async (c) => {
    const { id } = await group(c, "add");
    expect((await addVariantsToSellingPlanGroup(c, id, [variantGid(7), variantGid(8)]))?.productVariantsCount).toBe(4);
  },
  SellingPlanGroupRemoveProductVariants: async (c) => {
    const { id } = await group(c, "remove");
    expect(await removeVariantsFromSellingPlanGroup(c, id, [variantGid(1)])).toEqual([variantGid(1)]);
  },
  SellingPlanGroup: async (c) => {
    const { id } = await group(c, "get");
    expect(await getSellingPlanGroup(c, id)).toMatchObject({ id, merchantCode: "get", options: ["Payment"], productVariantsCount: 2 });
  },
  SellingPlanGroupVariants: async (c) => {
    const { id } = await group(c, "variants");
    expect((await collect(sellingPlanGroupVariantIds(c, id, 1))).sort()).toEqual([variantGid(0), variantGid(1)].sort());
  },
  TagsAdd: async (c) => {
    await addTags(c, productGid(1), ["preorder-tagged"]);
    expect(emulator.store.products[1]?.tags).toContain("preorder-tagged");
  },
  TagsRemove: async (c) => {
    await addTags(c, productGid(2), ["preorder-untagged"]);
    await removeTags(c, productGid(2), ["preorder-untagged"]);
    expect(emulator.store.products[2]?.tags).not.toContain("preorder-untagged");
  },
  VariantPolicies: async (c) => {
    expect((await getVariantPolicies(c, [variantGid(9)])).get(variantGid(9))).toBe(emulator.store.variants[9]?.inventoryPolicy);
  },
  ProductVariantsBulkUpdate: async (c) => {
    const product = emulator.store.products[3];
    const variant = product ? emulator.store.variants[product.firstVariant] : undefined;
    const id = `gid://shopify/ProductVariant/${variant?.id}`;
    expect(await setVariantPolicies(c, productGid(3), [{ id, inventoryPolicy: "CONTINUE" }])).toEqual([{ id, inventoryPolicy: "CONTINUE" }]);
  },
  MirrorProducts: async (c) => {
    const products = (await collect(catalog.productPages(c))).flat();
    expect(products).toHaveLength(emulator.store.products.length);
    expect(products[0]).toMatchObject({ id: productGid(0), status: "ACTIVE" });
  },
  MirrorVariantsCount: async (c) => {
    // Without the 10,000 cap (limit: null): every variant of the store (30 products of 3 here).
    expect(await catalog.variantCount(c)).toBe(emulator.store.variants.length);
  },
  MirrorVariants: async (c) => {
    const variants = (await collect(catalog.variantPages(c))).flat();
    expect(variants).toHaveLength(emulator.store.variants.length);
    expect(variants[0]).toMatchObject({ id: variantGid(0), productId: productGid(0), inventoryPolicy: emulator.store.variants[0]?.inventoryPolicy });
  },
  MirrorInventory: async (c) => {
    const location = emulator.store.activeLocations()[0];
    const levels = (await collect(catalog.inventoryPages(c, `gid://shopify/Location/${location?.id}`))).flat();
    expect(levels).toHaveLength(emulator.store.variants.length);
  },
  MirrorLocations: async (c) => {
    const locations = (await collect(catalog.locationPages(c))).flat();
    expect(locations.map((l) => l.active)).toEqual(emulator.store.locations.map((l) => l.isActive));
  },
  MirrorMarkets: async (c) => {
    const markets = (await collect(catalog.marketPages(c))).flat();
    // The records the mirror stored before the Markets API moved: the same meaning, read from today's fields.
    expect(markets).toEqual(
      emulator.store.markets.map((m) => ({
        id: `gid://shopify/Market/${m.id}`,
        name: m.name,
        active: m.enabled,
        primary: m.primary,
        countries: m.countryCodes,
        locationIds: m.locationIds.map((l) => `gid://shopify/Location/${l}`),
      })),
    );
  },
  MirrorCollections: async (c) => {
    expect((await collect(catalog.collectionPages(c))).flat()).toHaveLength(emulator.store.collections.length);
  },
};

describe("every operation the client sends, through the emulator built on Shopify's schema", () => {
  beforeAll(async () => {
    emulator = await startEmulator({ seed: { products: 30, variantsPerProduct: 3 } });
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("has a test for each of the client's documents", async () => {
    expect(Object.keys(operations).sort()).toEqual((await platformDocuments()).map((d) => d.operation).sort());
  });

  it.each(Object.keys(operations))("%s", async (operation) => {
    const c = client();
    await operations[operation]?.(c);
    expect(c.sent.map((s) => s.operation)).toContain(operation);
    expect(c.sent.flatMap((s) => deprecatedInputs(s.document, s.variables).map((field) => `${s.operation}: ${field}`))).toEqual([]);
  });
});
