import { beforeAll, describe, expect, it } from "vitest";
import { queueFulfillmentHolds } from "../src/preorders/orders/fulfillment-holds.ts";
import { getFulfillmentOrders } from "../src/platform/operations/fulfillment-orders.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { emulatorOrder, emulatorPlan, insertOfferOnPlan, runNow, workerJob } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({
  shop: "Holds Shop",
  emulator: { seed: { products: 3, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1 }, throttle: { maximumAvailable: 100_000, restoreRate: 100_000 }, webhooks: { backoffMs: 50 } },
  connect: true,
  worker: true,
});

interface HoldBody {
  fulfillment_order_id: string;
  hold_id: string;
  offer_ids: string[];
  reason: string;
  reason_notes: string | null;
  held_at: string;
  released_at: string | null;
}

interface OrderBody {
  status: string;
  released_at: string | null;
  fulfillment_holds: HoldBody[];
  fulfillment_hold_error: string | null;
}

let holdPlan: string;
let holdVariant: number;
let holdOffer: string;
let plainPlan: string;
let plainVariant: number;
let otherVariant: number;

beforeAll(async () => {
  ({ planGid: holdPlan, variantId: holdVariant } = await emulatorPlan(env, 0));
  ({ planGid: plainPlan, variantId: plainVariant } = await emulatorPlan(env, 2));
  otherVariant = env.emulator.store.variants[4]?.id ?? 0;
  holdOffer = await insertOfferOnPlan(env.app.pool, env.shopId, holdPlan, { shipping: { fulfillment: { hold: true, hold_reason: "Ships when the spring drop lands." } } });
  await insertOfferOnPlan(env.app.pool, env.shopId, plainPlan, {});
});

async function platformFulfillmentOrders(platformOrderId: string) {
  const client = await env.platform.clientFor(env.app.pool, env.shopId);
  return (await getFulfillmentOrders(client, platformOrderId)) ?? [];
}

async function order(id: string): Promise<OrderBody> {
  const answer = await invoke(env.app, "GET", `/preorders/orders/${id}`, { key: env.key });
  expect(answer.status).toBe(200);
  return answer.body as OrderBody;
}

describe("shipping.fulfillment.hold", () => {
  it("holds the preorder items' fulfillment order with the offer's hold_reason, and release releases it (OPEN again)", async () => {
    const { orderId, platform } = await emulatorOrder(env, { line_items: [{ variant_id: holdVariant, quantity: 2, price: "30.00" }], selling_plan_id: holdPlan, email: "hold@example.com", financial_status: "paid" });
    const held = await waitFor("the order's hold recorded", async () => {
      const body = await order(orderId);
      return body.fulfillment_holds.length > 0 ? body : undefined;
    });
    expect(held.fulfillment_hold_error).toBeNull();
    expect(held.fulfillment_holds).toEqual([
      {
        fulfillment_order_id: expect.stringMatching(/^gid:\/\/shopify\/FulfillmentOrder\/\d+$/) as string,
        hold_id: expect.stringMatching(/^gid:\/\/shopify\/FulfillmentHold\/\d+$/) as string,
        offer_ids: [holdOffer],
        reason: "INVENTORY_OUT_OF_STOCK",
        reason_notes: "Ships when the spring drop lands.",
        held_at: expect.any(String) as string,
        released_at: null,
      },
    ]);
    const onPlatform = await platformFulfillmentOrders(platform.admin_graphql_api_id);
    expect(onPlatform.map((f) => f.status)).toEqual(["ON_HOLD"]);
    expect(onPlatform[0]?.fulfillmentHolds).toEqual([
      { id: held.fulfillment_holds[0]?.hold_id, handle: "preorder", reason: "INVENTORY_OUT_OF_STOCK", reasonNotes: "Ships when the spring drop lands.", heldByRequestingApp: true },
    ]);

    const released = await invoke(env.app, "POST", `/preorders/orders/${orderId}/release`, { key: env.key, body: {} });
    expect(released.status).toBe(202);
    expect((released.body as OrderBody).status).toBe("released");
    await waitFor("the platform fulfillment order open again", async () => ((await platformFulfillmentOrders(platform.admin_graphql_api_id)).every((f) => f.status === "OPEN") ? true : undefined));
    const after = await waitFor("the hold recorded released", async () => {
      const body = await order(orderId);
      return body.fulfillment_holds[0]?.released_at ? body : undefined;
    });
    expect(after.fulfillment_hold_error).toBeNull();
    expect((await platformFulfillmentOrders(platform.admin_graphql_api_id))[0]?.fulfillmentHolds).toEqual([]);
  });

  it("holds only the preorder items of a mixed order: the platform splits the other items off, still open", async () => {
    const { orderId, platform } = await emulatorOrder(env, {
      line_items: [
        { variant_id: holdVariant, quantity: 1, selling_plan_id: holdPlan },
        { variant_id: otherVariant, quantity: 1 },
      ],
      email: "mixed@example.com",
      financial_status: "paid",
    });
    await waitFor("the order's hold recorded", async () => ((await order(orderId)).fulfillment_holds.length > 0 ? true : undefined));
    const onPlatform = await platformFulfillmentOrders(platform.admin_graphql_api_id);
    expect(onPlatform.map((f) => [f.status, f.lineItems.length])).toEqual([
      ["ON_HOLD", 1],
      ["OPEN", 1],
    ]);
  });

  it("leaves the fulfillment order of an offer without hold open, and queues no hold job", async () => {
    const { orderId, platform } = await emulatorOrder(env, { line_items: [{ variant_id: plainVariant, quantity: 1 }], selling_plan_id: plainPlan, email: "plain@example.com", financial_status: "paid" });
    expect(await workerJob(env.app.pool, `preorders_fulfillment_holds:${orderId}`)).toBeUndefined();
    expect((await platformFulfillmentOrders(platform.admin_graphql_api_id)).map((f) => f.status)).toEqual(["OPEN"]);
    const released = await invoke(env.app, "POST", `/preorders/orders/${orderId}/release`, { key: env.key, body: {} });
    expect(released.status).toBe(202);
    expect(await workerJob(env.app.pool, `preorders_fulfillment_holds:${orderId}`)).toBeUndefined();
    expect((await order(orderId)).fulfillment_holds).toEqual([]);
  });

  it("bulk_release releases the holds too", async () => {
    const { orderId, platform } = await emulatorOrder(env, { line_items: [{ variant_id: holdVariant, quantity: 1 }], selling_plan_id: holdPlan, email: "bulk@example.com", financial_status: "paid" });
    await waitFor("the order's hold recorded", async () => ((await order(orderId)).fulfillment_holds.length > 0 ? true : undefined));
    const bulk = await invoke(env.app, "POST", "/preorders/orders/bulk_release", { key: env.key, body: { order_ids: [orderId] } });
    expect(bulk.status).toBe(202);
    await waitFor("the platform fulfillment order open again", async () => ((await platformFulfillmentOrders(platform.admin_graphql_api_id)).every((f) => f.status === "OPEN") ? true : undefined));
    await waitFor("the hold recorded released", async () => ((await order(orderId)).fulfillment_holds[0]?.released_at ? true : undefined));
  });

  it("shows a failing hold on the order and retries it through graphile-worker", { timeout: 40_000 }, async () => {
    env.emulator.setFaults({ errorRate: 1 });
    try {
      const { orderId, platform } = await emulatorOrder(env, { line_items: [{ variant_id: holdVariant, quantity: 1 }], selling_plan_id: holdPlan, email: "retry@example.com", financial_status: "paid" });
      const key = `preorders_fulfillment_holds:${orderId}`;
      const failed = await waitFor("a failed attempt of the hold", async () => {
        const job = await workerJob(env.app.pool, key);
        return job && job.attempts >= 1 && job.last_error ? job : undefined;
      }, 30_000);
      expect(failed.last_error).toBeTruthy();
      expect((await order(orderId)).fulfillment_hold_error).toBeTruthy();
      env.emulator.setFaults({});
      await runNow(env.app.pool, key);
      const held = await waitFor("the hold after the retry", async () => {
        const body = await order(orderId);
        return body.fulfillment_holds.length > 0 ? body : undefined;
      });
      expect(held.fulfillment_hold_error).toBeNull();
      expect((await platformFulfillmentOrders(platform.admin_graphql_api_id)).map((f) => f.status)).toEqual(["ON_HOLD"]);
    } finally {
      env.emulator.setFaults({});
    }
  });
  it("keeps the record of a hold it placed when a later hold of the same order is refused", async () => {
    // Held off at first, so the order arrives with one fulfillment order and no hold job.
    const { planGid, variantId } = await emulatorPlan(env, 1);
    const offerId = await insertOfferOnPlan(env.app.pool, env.shopId, planGid, {});
    const { orderId, platform } = await emulatorOrder(env, {
      line_items: [
        { variant_id: variantId, quantity: 1, selling_plan_id: planGid },
        { variant_id: variantId, quantity: 2, selling_plan_id: planGid },
      ],
      email: "two-holds@example.com",
      financial_status: "paid",
    });
    // Two fulfillment orders (as two locations would give); the second already carries the app's
    // ten holds of other handles, so the platform refuses an eleventh.
    const emulated = env.emulator.store.orders.find((o) => o.id === platform.id);
    const first = emulated?.fulfillmentOrders[0];
    const moved = first?.lineItems.splice(1, 1)[0];
    if (!emulated || !first || !moved) throw new Error("the emulator's order has no second line");
    const second = env.emulator.store.addFulfillmentOrder(emulated, [{ lineItemId: moved.lineItemId, quantity: moved.totalQuantity }], "ON_HOLD");
    for (let i = 0; i < 10; i++) {
      second.holds.push({ kind: "FulfillmentHold", id: 9_000_000 + i, reason: "OTHER", reasonNotes: null, handle: `other-${i}`, appId: 4242, createdAt: Date.now() });
    }
    await env.app.pool.query("update preorder_offers set settings = $2 where id = $1", [offerId, JSON.stringify({ shipping: { fulfillment: { hold: true, hold_reason: "Two boxes." } } })]);
    await queueFulfillmentHolds(env.app.pool, env.shopId, orderId);

    const failed = await waitFor("the refused hold recorded", async () => {
      const body = await order(orderId);
      return body.fulfillment_hold_error ? body : undefined;
    });
    const onPlatform = await platformFulfillmentOrders(platform.admin_graphql_api_id);
    const placed = onPlatform[0]?.fulfillmentHolds.find((h) => h.handle === "preorder");
    expect(placed).toBeDefined();
    // The hold the platform keeps is on the order's record, so a release finds it even if the offer stops holding.
    expect(failed.fulfillment_holds).toEqual([expect.objectContaining({ fulfillment_order_id: onPlatform[0]?.id, hold_id: placed?.id, offer_ids: [offerId], released_at: null })]);
  });
});
