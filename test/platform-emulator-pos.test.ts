import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../src/platform/emulator/index.ts";
import type { Variant } from "../src/platform/emulator/model.ts";
import { storePlanFor } from "./helpers/emulator-plan.ts";
import { deserializeStore, serializeStore } from "../src/platform/emulator/snapshot.ts";
import { orderPayload } from "../src/platform/emulator/webhooks/payloads.ts";

/**
 * The emulator's point of sale (decision 0213): a POS checkout at a retail location runs the app's
 * POS extension on the cart, reading each preorder line's offer from the variant's app metafield
 * (integrations.pos), and makes the order a POS order (sourceName pos, its retailLocation), in the
 * Admin API, the orders/create payload and the saved state alike.
 */
let emulator: Emulator;
let variants: Variant[];
let planId: number;
let locationId: number;

function planFor(variant: Variant): number {
  return storePlanFor(emulator.store, variant, "preorder-pos");
}

/** The offer's configuration on the variant, as the service's sync writes it, with its integrations.pos. */
function putOffer(variant: Variant, pos: { enabled: boolean; skip_inventory_check: boolean }): void {
  const offer = { version: 1, offer_id: "7", selling_plan_id: `gid://shopify/SellingPlan/${planId}`, integrations: { pos, b2b: { enabled: false } } };
  emulator.store.putMetafield({ ownerType: "PRODUCTVARIANT", ownerId: variant.id, namespace: `app--${emulator.appId}--preorder`, key: "offer-7", type: "json", value: JSON.stringify(offer) });
}

/** The variant's stock at the POS's location (the other locations keep plenty: only the POS's counts). */
function stockAt(variant: Variant, available: number): void {
  variant.inventoryPolicy = "DENY";
  variant.tracked = true;
  for (const location of emulator.store.activeLocations()) emulator.store.setAvailable(emulator.store.variantIndex(variant), location, location.id === locationId ? available : 50);
}

interface PosAnswer {
  status: number;
  json: { order?: { id: string; name: string; source_name: string; location_id: number }; errors?: { level?: string; handle?: string; target?: string; message: string }[] };
}

async function sell(lineItems: Record<string, unknown>[], location: number = locationId): Promise<PosAnswer> {
  const response = await fetch(`${emulator.origin}/pos/checkout`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ location_id: location, line_items: lineItems, email: "counter@example.com" }),
  });
  return { status: response.status, json: (await response.json()) as PosAnswer["json"] };
}

beforeAll(async () => {
  emulator = await startEmulator({ seed: { products: 4, variantsPerProduct: 2, locations: 2, markets: 1, collections: 1 } });
  variants = emulator.store.variants.slice();
  locationId = emulator.store.activeLocations()[0]?.id ?? 0;
  planId = planFor(variants[0] as Variant);
});
afterAll(async () => {
  await emulator?.close();
});

describe("the emulator's point of sale", () => {
  it("refuses a preorder line while the offer's pos.enabled is false, and sells it once true, as a POS order at its location", async () => {
    const variant = variants[0] as Variant;
    stockAt(variant, 10);
    putOffer(variant, { enabled: false, skip_inventory_check: false });
    const before = emulator.store.orders.length;
    const refused = await sell([{ variant_id: variant.id, quantity: 1, selling_plan_id: planId }]);
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual([{ level: "ERROR", handle: "preorder-pos-disabled", target: "$.cart.lineItems[0]", message: expect.stringContaining("cannot be preordered at the point of sale") as string }]);
    expect(emulator.store.orders.length).toBe(before);
    // A plain line of the same variant is the platform's to sell: the app has nothing to say.
    expect((await sell([{ variant_id: variant.id, quantity: 1 }])).status).toBe(201);

    putOffer(variant, { enabled: true, skip_inventory_check: false });
    const sold = await sell([{ variant_id: variant.id, quantity: 2, selling_plan_id: planId }]);
    expect(sold.status).toBe(201);
    const order = emulator.store.orders.at(-1);
    expect(sold.json.order).toEqual({ id: `gid://shopify/Order/${order?.id}`, name: order?.name, source_name: "pos", location_id: locationId });
    expect(order?.lineItems.map((l) => [l.variantId, l.quantity, l.sellingPlanId])).toEqual([[variant.id, 2, planId]]);
    // The orders/create payload and the Admin API say where it was sold.
    expect(orderPayload(emulator.store, order ?? emulator.store.orders[0]!)).toMatchObject({ source_name: "pos", location_id: locationId, financial_status: "paid" });
    const response = await fetch(emulator.graphqlUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "x-shopify-access-token": emulator.accessToken },
      body: JSON.stringify({ query: `{ order(id: "gid://shopify/Order/${order?.id}") { sourceName retailLocation { id name } } }` }),
    });
    const location = emulator.store.location(locationId);
    expect(((await response.json()) as { data: unknown }).data).toEqual({ order: { sourceName: "pos", retailLocation: { id: `gid://shopify/Location/${locationId}`, name: location?.name } } });
  });

  it("checks the POS location's stock against the preorder's units (all the variant's lines) unless pos.skip_inventory_check", async () => {
    const variant = variants[0] as Variant;
    putOffer(variant, { enabled: true, skip_inventory_check: false });
    stockAt(variant, 0);
    const out = await sell([{ variant_id: variant.id, quantity: 1, selling_plan_id: planId }]);
    expect(out.status).toBe(422);
    expect(out.json.errors).toEqual([{ level: "ERROR", handle: "preorder-pos-inventory", target: "$.cart.lineItems[0]", message: expect.stringContaining("out of stock at") as string }]);
    stockAt(variant, 2);
    const short = await sell([
      { variant_id: variant.id, quantity: 1 },
      { variant_id: variant.id, quantity: 2, selling_plan_id: planId },
    ]);
    expect(short.status).toBe(422);
    expect(short.json.errors?.map((e) => [e.handle, e.target, e.message])).toEqual([["preorder-pos-inventory", "$.cart.lineItems[1]", expect.stringContaining("Only 2 of") as string]]);
    expect((await sell([{ variant_id: variant.id, quantity: 2, selling_plan_id: planId }])).status).toBe(201);

    // Skipping the check sells the preorder at a location without stock.
    putOffer(variant, { enabled: true, skip_inventory_check: true });
    stockAt(variant, 0);
    const skipped = await sell([{ variant_id: variant.id, quantity: 3, selling_plan_id: planId }]);
    expect(skipped.status).toBe(201);
    expect(skipped.json.order?.source_name).toBe("pos");
  });

  it("refuses an unknown or inactive location; the online store's orders stay web orders; the saved state keeps the POS fields", async () => {
    const variant = variants[2] as Variant;
    stockAt(variant, 5);
    expect(await sell([{ variant_id: variant.id, quantity: 1 }], 999_999)).toEqual({ status: 422, json: { errors: [{ message: "location 999999 does not exist" }] } });
    const online = await fetch(`${emulator.origin}/admin/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ line_items: [{ variant_id: variant.id, quantity: 1 }] }) });
    expect(((await online.json()) as { order: Record<string, unknown> }).order).toMatchObject({ source_name: "web", location_id: null });

    expect((await sell([{ variant_id: variant.id, quantity: 1 }])).status).toBe(201);
    const { store } = deserializeStore(serializeStore(emulator.store, {}));
    const restored = store.orders.at(-1);
    expect(restored).toMatchObject({ sourceName: "pos", retailLocationId: locationId });
    expect(orderPayload(store, restored ?? store.orders[0]!)).toMatchObject({ source_name: "pos", location_id: locationId });
  });
});
