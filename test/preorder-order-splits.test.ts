import { beforeAll, describe, expect, it } from "vitest";
import { getFulfillmentOrders } from "../src/platform/operations/fulfillment-orders.ts";
import { createSellingPlanGroup } from "../src/platform/operations/selling-plans.ts";
import type { Order as EmulatorOrder } from "../src/platform/emulator/model.ts";
import { draftOrdersOf } from "../src/platform/emulator/resolvers/draft-orders.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { emulatorOrder, insertOfferOnPlan, orderPayload, runNow, workerJob } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";
import { deliverWebhook, webhooksProcessed } from "./helpers/webhook-delivery.ts";

const env = useTestEnv({
  shop: "Splits Shop",
  emulator: { seed: { products: 4, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1 }, throttle: { maximumAvailable: 100_000, restoreRate: 100_000 }, webhooks: { backoffMs: 20 } },
  connect: true,
  worker: true,
});

interface SplitBody {
  type: string;
  state: string;
  offer_ids: string[];
  fulfillment_orders: string[];
  orders: { key: string; name: string; line_item_ids: string[]; variant_ids: string[]; draft_order_id: string | null; draft_requested_at?: string | null; platform_order_id: string | null; platform_name: string | null }[];
  edited: boolean;
  done_at: string | null;
}

interface OrderBody {
  platform_order_id: string;
  status: string;
  tags: string[];
  line_items: { id: string; quantity: number }[];
  fulfillment_holds: { fulfillment_order_id: string; released_at: string | null }[];
  order_split: SplitBody | null;
  order_split_error: string | null;
}

const variant = (index: number) => env.emulator.store.variants[index]?.id ?? 0;
const variantGid = (index: number) => `gid://shopify/ProductVariant/${variant(index)}`;
let planCount = 0;

/** A selling plan group on the emulator for these seeded variants; answers the plan's gid. */
async function plan(indexes: number[]): Promise<string> {
  const client = await env.platform.clientFor(env.app.pool, env.shopId);
  const n = planCount++;
  const group = await createSellingPlanGroup(
    client,
    {
      name: `Split ${n}`,
      merchantCode: `split-test-${n}`,
      options: ["Preorder"],
      sellingPlansToCreate: [{ name: "Preorder", options: ["Preorder"], category: "PRE_ORDER", billingPolicy: { fixed: { checkoutCharge: { type: "PERCENTAGE", value: { percentage: 100 } }, remainingBalanceChargeTrigger: "NO_REMAINING_BALANCE" } }, deliveryPolicy: { fixed: { fulfillmentTrigger: "ASAP" } } }],
    } as never,
    indexes.map(variantGid),
  );
  const planGid = group.sellingPlans.nodes[0]?.id;
  if (!planGid) throw new Error("no plan");
  return planGid;
}

const splitSettings = (split: Record<string, unknown>) => ({ shipping: { fulfillment: { split: { enabled: true, ...split } } } });

async function platformFulfillmentOrders(platformOrderId: string) {
  const client = await env.platform.clientFor(env.app.pool, env.shopId);
  return (await getFulfillmentOrders(client, platformOrderId)) ?? [];
}

async function order(id: string): Promise<OrderBody> {
  const answer = await invoke(env.app, "GET", `/preorders/orders/${id}`, { key: env.key });
  expect(answer.status).toBe(200);
  return answer.body as OrderBody;
}

async function splitDone(id: string): Promise<OrderBody> {
  return waitFor("the order's split done", async () => {
    const body = await order(id);
    return body.order_split?.state === "done" ? body : undefined;
  });
}

const emulated = (id: number): EmulatorOrder => {
  const found = env.emulator.store.order(id);
  if (!found) throw new Error(`no emulator order ${id}`);
  return found;
};
const splitOffs = (platformOrderGid: string) => env.emulator.store.orders.filter((o) => o.customAttributes?.some((a) => a.key === "_preorder_split_of" && a.value === platformOrderGid));
const current = (o: EmulatorOrder) => o.lineItems.map((l) => [l.variantId, l.currentQuantity ?? l.quantity]);

let fulfillmentsPlan: string;
let fulfillmentsOffer: string;
let ordersPlan: string;
let ordersOffer: string;
let perVariantPlan: string;
let holdOrdersPlan: string;
let plainPlan: string;

beforeAll(async () => {
  fulfillmentsPlan = await plan([0]);
  fulfillmentsOffer = await insertOfferOnPlan(env.app.pool, env.shopId, fulfillmentsPlan, splitSettings({ type: "fulfillments" }));
  ordersPlan = await plan([1]);
  ordersOffer = await insertOfferOnPlan(
    env.app.pool,
    env.shopId,
    ordersPlan,
    splitSettings({ type: "orders", order_suffix: "-PRE", sequential_number: true, order_tag: "preorder-moved", transaction_gateway: "gid://shopify/PaymentGateway/2" }),
  );
  perVariantPlan = await plan([2, 3]);
  await insertOfferOnPlan(env.app.pool, env.shopId, perVariantPlan, splitSettings({ type: "orders", per_variant: true, sequential_number: true }));
  holdOrdersPlan = await plan([4]);
  await insertOfferOnPlan(env.app.pool, env.shopId, holdOrdersPlan, splitSettings({ type: "orders", hold_fulfillments: true, order_suffix: "-H" }));
  plainPlan = await plan([5]);
  await insertOfferOnPlan(env.app.pool, env.shopId, plainPlan, {});
});

describe("shipping.fulfillment.split", () => {
  it("type fulfillments: the preorder items get a fulfillment order of their own, the other items stay in theirs", async () => {
    const { orderId, platform } = await emulatorOrder(env, {
      line_items: [
        { variant_id: variant(0), quantity: 2, selling_plan_id: fulfillmentsPlan },
        { variant_id: variant(7), quantity: 1 },
      ],
      email: "split-fo@example.com",
    });
    const done = await splitDone(orderId);
    expect(done.order_split_error).toBeNull();
    expect(done.order_split).toMatchObject({ type: "fulfillments", offer_ids: [fulfillmentsOffer], orders: [] });
    const fulfillmentOrders = await platformFulfillmentOrders(platform.admin_graphql_api_id);
    expect(fulfillmentOrders.map((f) => [f.status, f.lineItems.map((l) => l.remainingQuantity)])).toEqual([
      ["OPEN", [1]],
      ["OPEN", [2]],
    ]);
    const preorderLine = done.line_items.find((l) => l.quantity === 2)?.id;
    expect(fulfillmentOrders[1]?.lineItems[0]?.lineItem.id).toBe(preorderLine);
    expect(done.order_split?.fulfillment_orders).toEqual([fulfillmentOrders[1]?.id]);
    // Still one order on the platform: nothing moved to a new one.
    expect(splitOffs(platform.admin_graphql_api_id)).toEqual([]);
  });

  it("type fulfillments with hold_fulfillments: the preorder items' own fulfillment order is held, the rest stays open", async () => {
    const heldPlan = await plan([6]);
    await insertOfferOnPlan(env.app.pool, env.shopId, heldPlan, splitSettings({ type: "fulfillments", hold_fulfillments: true }));
    const { orderId, platform } = await emulatorOrder(env, {
      line_items: [
        { variant_id: variant(6), quantity: 1, selling_plan_id: heldPlan },
        { variant_id: variant(7), quantity: 1 },
      ],
      email: "split-hold@example.com",
    });
    await splitDone(orderId);
    const held = await waitFor("the split fulfillment order held", async () => {
      const body = await order(orderId);
      return body.fulfillment_holds.length > 0 ? body : undefined;
    });
    const fulfillmentOrders = await platformFulfillmentOrders(platform.admin_graphql_api_id);
    expect(fulfillmentOrders.map((f) => f.status)).toEqual(["OPEN", "ON_HOLD"]);
    expect(held.fulfillment_holds.map((h) => h.fulfillment_order_id)).toEqual([fulfillmentOrders[1]?.id]);
  });

  it("type orders: the offer's items move to a new order named with order_suffix and its number, tagged order_tag, paid through transaction_gateway, at the price the shopper paid", async () => {
    const catalogCents = env.emulator.store.variants[1]?.priceCents;
    expect(catalogCents).not.toBe(1234);
    const { orderId, platform } = await emulatorOrder(env, {
      line_items: [
        { variant_id: variant(1), quantity: 2, selling_plan_id: ordersPlan, price: "12.34" },
        { variant_id: variant(7), quantity: 1 },
      ],
      email: "split-order@example.com",
    });
    const original = emulated(platform.id);
    const done = await splitDone(orderId);
    expect(done.order_split_error).toBeNull();
    const moved = splitOffs(platform.admin_graphql_api_id);
    expect(moved).toHaveLength(1);
    const created = moved[0];
    if (!created) throw new Error("no new order");
    expect(created.tags).toEqual(["preorder-moved"]);
    expect(created.poNumber).toBe(`${original.name}-PRE1`);
    expect(created.paymentGatewayNames).toEqual(["bogus"]);
    expect(created.financialStatus).toBe("paid");
    expect(created.email).toBe("split-order@example.com");
    expect(current(created)).toEqual([[variant(1), 2]]);
    // The price of the original order's line, not the catalog's.
    expect(created.lineItems.map((l) => l.priceCents)).toEqual([1234]);
    // The original keeps the other item; the moved one is at 0 there and out of its fulfillment order.
    expect(current(original)).toEqual([
      [variant(1), 0],
      [variant(7), 1],
    ]);
    expect((await platformFulfillmentOrders(platform.admin_graphql_api_id)).flatMap((f) => f.lineItems.filter((l) => l.remainingQuantity > 0).map((l) => l.remainingQuantity))).toEqual([1]);
    // The preorder record stays the original's and names the new order; the new order is no preorder record of its own.
    expect(done.platform_order_id).toBe(platform.admin_graphql_api_id);
    expect(done.order_split).toMatchObject({
      type: "orders",
      offer_ids: [ordersOffer],
      edited: true,
      orders: [{ key: ordersOffer, name: `${original.name}-PRE1`, variant_ids: [variantGid(1)], platform_order_id: `gid://shopify/Order/${created.id}`, platform_name: created.name }],
    });
    await env.emulator.webhooksSettled();
    await webhooksProcessed(env.app.pool);
    const { rows } = await env.app.pool.query("select 1 from preorder_orders where platform_order_id = $1", [`gid://shopify/Order/${created.id}`]);
    expect(rows).toHaveLength(0);
  });

  it("type orders: a preorder line without a variant (deleted on the platform) stays on the original order, neither moved nor set to 0", async () => {
    // The platform's order, with two items; its webhook arrives as the platform sends one whose
    // second preorder line lost its variant (deleted between checkout and delivery).
    const created = await fetch(`${env.emulator.origin}/admin/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ line_items: [{ variant_id: variant(1), quantity: 2 }, { variant_id: variant(6), quantity: 1 }] }),
    });
    expect(created.status).toBe(201);
    const { order: platform } = (await created.json()) as { order: { id: number; admin_graphql_api_id: string } };
    await env.emulator.webhooksSettled();
    await webhooksProcessed(env.app.pool);
    const original = emulated(platform.id);
    const [withVariant, withoutVariant] = original.lineItems;
    if (!withVariant || !withoutVariant) throw new Error("two lines expected");
    const planId = Number(ordersPlan.split("/").pop());
    const payload = {
      ...orderPayload({ id: platform.id, plan: planId, email: "no-variant@example.com" }),
      name: original.name,
      line_items: [
        { id: withVariant.id, variant_id: variant(1), product_id: 1, quantity: 2, price: "10.00", selling_plan_allocation: { selling_plan_id: planId } },
        { id: withoutVariant.id, variant_id: null, product_id: null, quantity: 1, price: "10.00", selling_plan_allocation: { selling_plan_id: planId } },
      ],
    };
    const { rows: shops } = await env.app.pool.query<{ platform_domain: string }>("select platform_domain from shops where id = $1", [env.shopId]);
    await deliverWebhook(env.app.origin, "orders/create", payload, shops[0]?.platform_domain ?? "");
    await webhooksProcessed(env.app.pool);
    const { rows } = await env.app.pool.query<{ id: string }>("select id from preorder_orders where platform_order_id = $1", [platform.admin_graphql_api_id]);
    const orderId = rows[0]?.id;
    if (!orderId) throw new Error("not recorded");
    const done = await splitDone(orderId);
    expect(done.order_split_error).toBeNull();
    const moved = splitOffs(platform.admin_graphql_api_id);
    expect(moved.map(current)).toEqual([[[variant(1), 2]]]);
    // The line without a variant is in no new order, so it keeps its quantity on the original.
    expect(current(original)).toEqual([
      [variant(1), 0],
      [variant(6), 1],
    ]);
    expect(done.order_split?.orders[0]?.line_item_ids).toEqual([`gid://shopify/LineItem/${withVariant.id}`]);
  });

  it("type orders with per_variant: one new order per variant, numbered in turn", async () => {
    const { orderId, platform } = await emulatorOrder(env, {
      line_items: [
        { variant_id: variant(2), quantity: 1, selling_plan_id: perVariantPlan },
        { variant_id: variant(3), quantity: 3, selling_plan_id: perVariantPlan },
      ],
      email: "split-variants@example.com",
    });
    const done = await splitDone(orderId);
    const name = emulated(platform.id).name;
    const moved = splitOffs(platform.admin_graphql_api_id);
    expect(moved.map((o) => [o.poNumber, o.tags, current(o)])).toEqual([
      [`${name}-P1`, ["preorder-split"], [[variant(2), 1]]],
      [`${name}-P2`, ["preorder-split"], [[variant(3), 3]]],
    ]);
    expect(done.order_split?.orders.map((o) => o.variant_ids)).toEqual([[variantGid(2)], [variantGid(3)]]);
    expect(current(emulated(platform.id))).toEqual([
      [variant(2), 0],
      [variant(3), 0],
    ]);
  });

  it("type orders with hold_fulfillments: the new order's fulfillment order is held, and release releases it", async () => {
    const { orderId, platform } = await emulatorOrder(env, { line_items: [{ variant_id: variant(4), quantity: 1, selling_plan_id: holdOrdersPlan }], email: "split-order-hold@example.com" });
    const done = await splitDone(orderId);
    const created = done.order_split?.orders[0]?.platform_order_id;
    if (!created) throw new Error("no new order");
    expect((await platformFulfillmentOrders(created)).map((f) => f.status)).toEqual(["ON_HOLD"]);
    expect(done.fulfillment_holds).toHaveLength(1);
    // The original has nothing left to fulfil.
    expect((await platformFulfillmentOrders(platform.admin_graphql_api_id)).map((f) => f.status)).toEqual(["CLOSED"]);
    const released = await invoke(env.app, "POST", `/preorders/orders/${orderId}/release`, { key: env.key, body: {} });
    expect(released.status).toBe(202);
    await waitFor("the new order's fulfillment order open again", async () => ((await platformFulfillmentOrders(created)).every((f) => f.status === "OPEN") ? true : undefined));
  });

  it("type orders with hold_fulfillments: an order released while its split waits for a retry gets no hold on its new order", { timeout: 40_000 }, async () => {
    env.emulator.setFaults({ failFields: ["orderEditBegin"] });
    try {
      const { orderId } = await emulatorOrder(env, { line_items: [{ variant_id: variant(4), quantity: 1, selling_plan_id: holdOrdersPlan }], email: "split-released@example.com" });
      const failed = await waitFor("a failed attempt of the split", async () => {
        const body = await order(orderId);
        return body.order_split_error ? body : undefined;
      }, 30_000);
      const created = failed.order_split?.orders[0]?.platform_order_id;
      if (!created) throw new Error("no new order");
      const released = await invoke(env.app, "POST", `/preorders/orders/${orderId}/release`, { key: env.key, body: {} });
      expect(released.status).toBe(202);
      env.emulator.setFaults({});
      await runNow(env.app.pool, `preorders_order_split:${orderId}`);
      const done = await splitDone(orderId);
      expect(done.order_split_error).toBeNull();
      // Nothing would ever release a hold placed now: the order was released before it.
      expect((await platformFulfillmentOrders(created)).map((f) => f.status)).toEqual(["OPEN"]);
      expect(done.fulfillment_holds).toEqual([]);
    } finally {
      env.emulator.setFaults({});
    }
  });

  it("a draft whose creation answer was lost is found again, completed, and no second draft is left open", { timeout: 40_000 }, async () => {
    const before = draftOrdersOf(env.emulator.store).length;
    env.emulator.setFaults({ loseAnswerFields: ["draftOrderCreate"] });
    try {
      const { orderId, platform } = await emulatorOrder(env, {
        line_items: [
          { variant_id: variant(1), quantity: 1, selling_plan_id: ordersPlan },
          { variant_id: variant(7), quantity: 1 },
        ],
        email: "split-lost-draft@example.com",
      });
      // The platform made the draft but its answer was lost: the attempt fails, having asked for it.
      const failed = await waitFor("the attempt that lost the draft's answer", async () => {
        const body = await order(orderId);
        return body.order_split_error ? body : undefined;
      }, 30_000);
      expect(failed.order_split?.orders[0]).toMatchObject({ draft_order_id: null, platform_order_id: null });
      expect(failed.order_split?.orders[0]?.draft_requested_at).toBeTruthy();
      await runNow(env.app.pool, `preorders_order_split:${orderId}`);
      const done = await splitDone(orderId);
      expect(done.order_split_error).toBeNull();
      expect(splitOffs(platform.admin_graphql_api_id)).toHaveLength(1);
      // One draft was made for this split, and it is the one completed: nothing left open.
      const drafts = draftOrdersOf(env.emulator.store).slice(before);
      expect(drafts.map((d) => d.status)).toEqual(["COMPLETED"]);
      expect(`gid://shopify/DraftOrder/${drafts[0]?.id}`).toBe(done.order_split?.orders[0]?.draft_order_id);
    } finally {
      env.emulator.setFaults({});
    }
  });

  it("a draft asked for a moment ago and not found yet is not asked for again until the platform's search has had time to show it", { timeout: 40_000 }, async () => {
    const before = draftOrdersOf(env.emulator.store).length;
    env.emulator.setFaults({ failFields: ["draftOrderCreate"] });
    try {
      const { orderId, platform } = await emulatorOrder(env, {
        line_items: [
          { variant_id: variant(1), quantity: 1, selling_plan_id: ordersPlan },
          { variant_id: variant(7), quantity: 1 },
        ],
        email: "split-search-lag@example.com",
      });
      const key = `preorders_order_split:${orderId}`;
      await waitFor("the failed ask for the draft", async () => ((await order(orderId)).order_split_error ? true : undefined), 30_000);
      env.emulator.setFaults({});
      // Asked a moment ago and not found: it may still be coming into the search; nothing is asked again.
      await env.app.pool.query("update preorder_orders set order_split_error = null where id = $1", [orderId]);
      await runNow(env.app.pool, key);
      const waiting = await waitFor("the attempt that waits for the search", async () => {
        const body = await order(orderId);
        return body.order_split_error ? body : undefined;
      }, 30_000);
      expect(waiting.order_split_error).toContain("not found yet");
      expect(draftOrdersOf(env.emulator.store).length).toBe(before);
      // Long enough ago: not there means never made; it is asked for once.
      await env.app.pool.query(
        `update preorder_orders set order_split = jsonb_set(order_split, '{orders,0,draft_requested_at}', to_jsonb((now() - interval '2 minutes')::text)) where id = $1`,
        [orderId],
      );
      await runNow(env.app.pool, key);
      const done = await splitDone(orderId);
      expect(done.order_split_error).toBeNull();
      expect(splitOffs(platform.admin_graphql_api_id)).toHaveLength(1);
      expect(draftOrdersOf(env.emulator.store).slice(before).map((d) => d.status)).toEqual(["COMPLETED"]);
    } finally {
      env.emulator.setFaults({});
    }
  });

  it("a completion or split whose answer was lost (the client's retry is refused as done) still finishes the split", { timeout: 40_000 }, async () => {
    env.emulator.setFaults({ loseAnswerFields: ["draftOrderComplete", "fulfillmentOrderSplit"] });
    try {
      const moved = await emulatorOrder(env, {
        line_items: [
          { variant_id: variant(1), quantity: 1, selling_plan_id: ordersPlan },
          { variant_id: variant(7), quantity: 1 },
        ],
        email: "split-lost-answer@example.com",
      });
      const done = await splitDone(moved.orderId);
      expect(done.order_split_error).toBeNull();
      expect(done.order_split).toMatchObject({ state: "done", edited: true });
      expect(splitOffs(moved.platform.admin_graphql_api_id)).toHaveLength(1);
      expect(current(emulated(moved.platform.id))).toEqual([
        [variant(1), 0],
        [variant(7), 1],
      ]);

      const apart = await emulatorOrder(env, {
        line_items: [
          { variant_id: variant(0), quantity: 1, selling_plan_id: fulfillmentsPlan },
          { variant_id: variant(7), quantity: 1 },
        ],
        email: "split-lost-fo@example.com",
      });
      const split = await splitDone(apart.orderId);
      expect(split.order_split_error).toBeNull();
      expect(split.order_split?.fulfillment_orders).toHaveLength(1);
    } finally {
      env.emulator.setFaults({});
    }
  });

  it("a retry after a platform failure makes no second new order", { timeout: 40_000 }, async () => {
    env.emulator.setFaults({ failFields: ["orderEditBegin"] });
    try {
      const { orderId, platform } = await emulatorOrder(env, {
        line_items: [
          { variant_id: variant(1), quantity: 1, selling_plan_id: ordersPlan },
          { variant_id: variant(7), quantity: 1 },
        ],
        email: "split-retry@example.com",
      });
      const key = `preorders_order_split:${orderId}`;
      const failed = await waitFor("a failed attempt of the split", async () => {
        const body = await order(orderId);
        return body.order_split_error ? body : undefined;
      }, 30_000);
      // The new order was made before the edit failed, and is recorded.
      expect(failed.order_split?.orders[0]?.platform_order_id).toBeTruthy();
      expect(failed.order_split?.edited).toBe(false);
      expect(splitOffs(platform.admin_graphql_api_id)).toHaveLength(1);
      env.emulator.setFaults({});
      await runNow(env.app.pool, key);
      const done = await splitDone(orderId);
      expect(done.order_split_error).toBeNull();
      expect(splitOffs(platform.admin_graphql_api_id)).toHaveLength(1);
      expect(current(emulated(platform.id))).toEqual([
        [variant(1), 0],
        [variant(7), 1],
      ]);
    } finally {
      env.emulator.setFaults({});
    }
  });

  it("leaves an order with no preorder item of a split offer untouched: no split job, one open fulfillment order", async () => {
    const { orderId, platform } = await emulatorOrder(env, {
      line_items: [
        { variant_id: variant(5), quantity: 1, selling_plan_id: plainPlan },
        { variant_id: variant(7), quantity: 1 },
      ],
      email: "no-split@example.com",
    });
    expect(await workerJob(env.app.pool, `preorders_order_split:${orderId}`)).toBeUndefined();
    expect((await order(orderId)).order_split).toBeNull();
    expect((await platformFulfillmentOrders(platform.admin_graphql_api_id)).map((f) => f.status)).toEqual(["OPEN"]);
    expect(splitOffs(platform.admin_graphql_api_id)).toEqual([]);
  });

  it("records a shopper's order that only claims to be a split-off (the attribute without the split's order and PO number)", async () => {
    // The shop's own domain (the emulator's): the other tests' webhooks keep finding the shop.
    const { rows: shops } = await env.app.pool.query<{ platform_domain: string }>("select platform_domain from shops where id = $1", [env.shopId]);
    const domain = shops[0]?.platform_domain ?? "";
    // A cart attribute becomes a note attribute: a shopper can write it, naming any order.
    const forged = orderPayload({ plan: Number(ordersPlan.split("/").pop()) });
    await deliverWebhook(env.app.origin, "orders/create", { ...forged, note_attributes: [{ name: "_preorder_split_of", value: "gid://shopify/Order/1" }] }, domain);
    const { rows: splitOriginals } = await env.app.pool.query<{ platform_order_id: string; name: string }>(
      "select platform_order_id, g->>'name' as name from preorder_orders, jsonb_array_elements(order_split->'orders') g where shop_id = $1 and order_split->>'type' = 'orders' limit 1",
      [env.shopId],
    );
    const real = splitOriginals[0];
    if (!real) throw new Error("no split original in this file's shop");
    const named = orderPayload({ plan: Number(ordersPlan.split("/").pop()) });
    await deliverWebhook(env.app.origin, "orders/create", { ...named, note_attributes: [{ name: "_preorder_split_of", value: real.platform_order_id }] }, domain);
    await webhooksProcessed(env.app.pool);
    for (const payload of [forged, named]) {
      const { rows } = await env.app.pool.query("select 1 from preorder_orders where platform_order_id = $1", [payload.admin_graphql_api_id]);
      expect(rows, payload.admin_graphql_api_id).toHaveLength(1);
    }
  });
});

describe("split_order_app", () => {
  it("on: the service splits nothing; it tags the order for the split-order app and records the hand-off", async () => {
    const on = await invoke(env.app, "PATCH", "/account/integrations", { key: env.key, body: { split_order_app: { enabled: true } } });
    expect(on).toMatchObject({ status: 202, body: { split_order_app: { enabled: true } } });
    try {
      const { orderId, platform } = await emulatorOrder(env, {
        line_items: [
          { variant_id: variant(1), quantity: 1, selling_plan_id: ordersPlan },
          { variant_id: variant(7), quantity: 1 },
        ],
        email: "split-app@example.com",
      });
      const body = await order(orderId);
      expect(body.order_split).toMatchObject({ type: "app", state: "handed_off", offer_ids: [ordersOffer], orders: [] });
      expect(body.tags).toContain("preorder-split-requested");
      expect(await workerJob(env.app.pool, `preorders_order_split:${orderId}`)).toBeUndefined();
      await waitFor("the platform order tagged for the split-order app", async () => (emulated(platform.id).tags.includes("preorder-split-requested") ? true : undefined));
      expect(splitOffs(platform.admin_graphql_api_id)).toEqual([]);
      expect(current(emulated(platform.id))).toEqual([
        [variant(1), 1],
        [variant(7), 1],
      ]);
      expect((await platformFulfillmentOrders(platform.admin_graphql_api_id)).map((f) => f.status)).toEqual(["OPEN"]);
    } finally {
      await invoke(env.app, "PATCH", "/account/integrations", { key: env.key, body: { split_order_app: { enabled: false } } });
    }
  });
});
