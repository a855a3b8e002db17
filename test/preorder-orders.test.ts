import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { preorderCountsForVariants, storedVariantCounts } from "../src/preorders/orders/counts.ts";
import { relinkOfferOrderLines } from "../src/preorders/orders/offer-lines.ts";
import { getOrder as getPlatformOrder } from "../src/platform/operations/orders.ts";
import { createSellingPlanGroup } from "../src/platform/operations/selling-plans.ts";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { seedOffer } from "./helpers/preorders.ts";
import { deliverWebhook, webhooksProcessed } from "./helpers/webhook-delivery.ts";

const env = useTestEnv({
  shop: "Orders Shop",
  emulator: {
    seed: { products: 4, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1 },
    throttle: { maximumAvailable: 100_000, restoreRate: 100_000 },
    webhooks: { backoffMs: 50 },
  },
  connect: true,
  worker: true,
});
let otherShopId: string;
let otherKey: string;
let domain: string;
const OTHER_DOMAIN = "other-orders.platform.local";

beforeAll(async () => {
  ({ shopId: otherShopId, apiKey: otherKey } = await createShopWithKey(env.app.pool, "Other Shop"));
  await env.app.pool.query("update shops set platform_domain = $2 where id = $1", [otherShopId, OTHER_DOMAIN]);
  domain = env.emulator.shopDomain;
});

// ---------------------------------------------------------------------------------------------
// Deliveries as the platform signs them, and waiting on the worker

let nextOrder = 7_000;

interface LineSpec {
  variant: number;
  quantity?: number;
  price?: string;
  plan?: number | null;
}

interface OrderSpec {
  id?: number;
  email?: string;
  created_at?: string;
  updated_at?: string;
  cancelled_at?: string | null;
  financial_status?: string;
  fulfillment_status?: string | null;
  total_price?: string;
  total_outstanding?: string;
  lines?: LineSpec[];
}

function orderPayload(spec: OrderSpec = {}) {
  const id = spec.id ?? nextOrder++;
  const lines = spec.lines ?? [{ variant: 101, quantity: 1, price: "100.00", plan: 55 }];
  const total = spec.total_price ?? lines.reduce((sum, l) => sum + Number(l.price ?? "100.00") * (l.quantity ?? 1), 0).toFixed(2);
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#${id}`,
    email: spec.email ?? "Buyer@Example.com",
    created_at: spec.created_at ?? "2026-11-01T10:00:00Z",
    updated_at: spec.updated_at ?? "2026-11-01T10:00:00Z",
    cancelled_at: spec.cancelled_at ?? null,
    financial_status: spec.financial_status ?? "paid",
    fulfillment_status: spec.fulfillment_status ?? null,
    currency: "USD",
    total_price: total,
    total_outstanding: spec.total_outstanding ?? "0.00",
    tags: "",
    customer: { id: 42, email: "buyer@example.com", phone: null, first_name: "B" },
    line_items: lines.map((l, i) => ({
      id: id * 10 + i,
      variant_id: l.variant,
      product_id: 900,
      quantity: l.quantity ?? 1,
      price: l.price ?? "100.00",
      selling_plan_allocation: l.plan === null ? null : { selling_plan_id: l.plan ?? 55 },
    })),
  };
}

const deliver = (topic: string, payload: unknown, shopDomain = domain): Promise<void> => deliverWebhook(env.app.origin, topic, payload, shopDomain);

/** Every recorded delivery processed by the worker. */
const processed = (): Promise<void> => webhooksProcessed(env.app.pool);

/** Delivers in order (each processed before the next) and answers the preorder order's id. */
async function place(topic: string, payload: ReturnType<typeof orderPayload>, shopDomain = domain): Promise<string> {
  await deliver(topic, payload, shopDomain);
  await processed();
  const { rows } = await env.app.pool.query<{ id: string }>("select id from preorder_orders where platform_order_id = $1", [payload.admin_graphql_api_id]);
  const row = rows[0];
  if (!row) throw new Error(`order ${payload.id} is not a preorder order`);
  return row.id;
}

interface OrderBody {
  id: string;
  status: string;
  released_at: string | null;
  cancelled_at: string | null;
  total_outstanding: string;
  deposit_paid: string | null;
  balance_amount: string;
  tags: string[];
  offer_ids: string[];
  line_items: { id: string; variant_id: string; quantity: number; selling_plan_id: string | null; offer_id: string | null; preorder: boolean }[];
  balance_collection_requested_at: string | null;
}

async function getOrder(id: string, apiKey = env.key): Promise<OrderBody> {
  const answer = await invoke(env.app, "GET", `/preorders/orders/${id}`, { key: apiKey });
  expect(answer.status).toBe(200);
  return answer.body as OrderBody;
}

interface JobBody {
  status: string;
  total: number | null;
  processed: number;
  result: { counts?: Record<string, number>; outcomes?: { order_id: string; outcome: string; reason: string | null }[] } & Record<string, unknown>;
  errors: unknown[];
}

async function finishedJob(handle: unknown, apiKey = env.key): Promise<JobBody> {
  const { status_url: statusUrl } = handle as { status_url: string };
  const path = statusUrl.replace("/api/v2/external", "");
  return waitFor("the job to finish", async () => {
    const answer = await invoke(env.app, "GET", path, { key: apiKey });
    const job = answer.body as JobBody;
    return ["completed", "failed", "cancelled"].includes(job.status) ? job : undefined;
  });
}

// ---------------------------------------------------------------------------------------------

describe("preorder orders from the platform's order webhooks", () => {
  it("tracks orders with a line on a selling plan, and only those", async () => {
    const preorder = orderPayload({
      financial_status: "partially_paid",
      total_outstanding: "60.00",
      lines: [
        { variant: 101, quantity: 2, price: "50.00", plan: 55 },
        { variant: 102, quantity: 1, price: "20.00", plan: null },
      ],
    });
    const plain = orderPayload({ lines: [{ variant: 101, plan: null }] });
    await deliver("orders/create", preorder);
    await deliver("orders/create", plain);
    await processed();
    const { rows } = await env.app.pool.query<{ n: number }>("select count(*)::int as n from platform_orders where shop_id = $1", [env.shopId]);
    expect(rows[0]?.n).toBe(2);
    const list = await invoke(env.app, "GET", "/preorders/orders", { key: env.key });
    expect(list.status).toBe(200);
    const body = list.body as { orders: OrderBody[]; total: number; page: number; per_page: number };
    expect(body).toMatchObject({ total: 1, page: 1, per_page: 50 });
    const order = body.orders[0];
    expect(order).toMatchObject({
      status: "awaiting_balance",
      total_outstanding: "60.00",
      balance_amount: "60.00",
      deposit_paid: "60.00",
      email: "buyer@example.com",
      platform_order_id: preorder.admin_graphql_api_id,
    });
    expect(order?.line_items).toEqual([
      expect.objectContaining({ variant_id: "gid://shopify/ProductVariant/101", quantity: 2, selling_plan_id: "gid://shopify/SellingPlan/55", preorder: true }),
      expect.objectContaining({ variant_id: "gid://shopify/ProductVariant/102", quantity: 1, selling_plan_id: null, preorder: false }),
    ]);
  });

  it("derives the status from the facts, and an older delivery never undoes a newer one", async () => {
    const base = { id: nextOrder++, financial_status: "partially_paid", total_outstanding: "50.00" };
    const id = await place("orders/create", orderPayload({ ...base, updated_at: "2026-11-01T10:00:00Z" }));
    expect((await getOrder(id)).status).toBe("awaiting_balance");
    await place("orders/paid", orderPayload({ ...base, financial_status: "paid", total_outstanding: "0.00", updated_at: "2026-11-02T10:00:00Z" }));
    expect((await getOrder(id)).status).toBe("balance_collected");
    // the create again, late: still collected
    await place("orders/create", orderPayload({ ...base, updated_at: "2026-11-01T10:00:00Z" }));
    expect((await getOrder(id)).status).toBe("balance_collected");
    await place("orders/fulfilled", orderPayload({ ...base, financial_status: "paid", total_outstanding: "0.00", fulfillment_status: "fulfilled", updated_at: "2026-11-03T10:00:00Z" }));
    expect((await getOrder(id)).status).toBe("fulfilled");

    const paidInFull = await place("orders/create", orderPayload());
    expect((await getOrder(paidInFull)).status).toBe("placed");
    expect((await getOrder(paidInFull)).deposit_paid).toBeNull();

    const refunded = orderPayload();
    const refundedId = await place("orders/create", refunded);
    await place("orders/paid", { ...refunded, financial_status: "refunded", updated_at: "2026-11-05T00:00:00Z" });
    expect((await getOrder(refundedId)).status).toBe("refunded");

    const cancelled = orderPayload();
    const cancelledId = await place("orders/create", cancelled);
    await place("orders/cancelled", { ...cancelled, cancelled_at: "2026-11-05T00:00:00Z", financial_status: "refunded", updated_at: "2026-11-05T00:00:00Z" });
    const cancelledOrder = await getOrder(cancelledId);
    expect(cancelledOrder).toMatchObject({ status: "cancelled", cancelled_at: "2026-11-05T00:00:00.000Z", cancelled_by: "platform" });
  });
});

describe("release, cancel and charge_balance", () => {
  it("release: 409 while the balance is unpaid unless forced; idempotent; 409 on a cancelled order", async () => {
    const id = await place("orders/create", orderPayload({ financial_status: "partially_paid", total_outstanding: "40.00" }));
    const refused = await invoke(env.app, "POST", `/preorders/orders/${id}/release`, { key: env.key });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ errors: [expect.stringContaining("unpaid balance of 40.00 USD")] });
    expect((await getOrder(id)).status).toBe("awaiting_balance");

    const forced = await invoke(env.app, "POST", `/preorders/orders/${id}/release`, { key: env.key, body: { force: true } });
    expect(forced.status).toBe(202);
    const released = forced.body as OrderBody;
    expect(released.status).toBe("released");
    expect(released.released_at).not.toBeNull();
    const again = await invoke(env.app, "POST", `/preorders/orders/${id}/release`, { key: env.key });
    expect(again.status).toBe(202);
    expect((again.body as OrderBody).released_at).toBe(released.released_at);

    const paid = await place("orders/create", orderPayload());
    expect((await invoke(env.app, "POST", `/preorders/orders/${paid}/release`, { key: env.key })).body).toMatchObject({ status: "released" });

    const cancelled = await place("orders/create", orderPayload());
    expect((await invoke(env.app, "POST", `/preorders/orders/${cancelled}/cancel`, { key: env.key })).status).toBe(202);
    const onCancelled = await invoke(env.app, "POST", `/preorders/orders/${cancelled}/release`, { key: env.key, body: { force: true } });
    expect(onCancelled).toMatchObject({ status: 409, body: { errors: [`Preorder order ${cancelled} is already cancelled`] } });
  });

  it("cancel: cancelled in the app, idempotent, refused once fulfilled", async () => {
    const payload = orderPayload();
    const id = await place("orders/create", payload);
    const first = await invoke(env.app, "POST", `/preorders/orders/${id}/cancel`, { key: env.key });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ status: "cancelled", cancelled_by: "app" });
    const second = await invoke(env.app, "POST", `/preorders/orders/${id}/cancel`, { key: env.key });
    expect(second.status).toBe(202);
    expect((second.body as OrderBody).cancelled_at).toBe((first.body as OrderBody).cancelled_at);

    const shipped = orderPayload({ fulfillment_status: "fulfilled" });
    const shippedId = await place("orders/fulfilled", shipped);
    const refused = await invoke(env.app, "POST", `/preorders/orders/${shippedId}/cancel`, { key: env.key });
    expect(refused).toMatchObject({ status: 409, body: { errors: [`Preorder order ${shippedId} is already fulfilled`] } });
    expect((await invoke(env.app, "POST", `/preorders/orders/${id}/cancel`, { key: env.key, body: { force: true } })).body).toEqual({ errors: ["force is not allowed"] });
  });

  it("charge_balance: 409 without an outstanding balance or on a cancelled order", async () => {
    const paid = await place("orders/create", orderPayload());
    expect(await invoke(env.app, "POST", `/preorders/orders/${paid}/charge_balance`, { key: env.key })).toMatchObject({
      status: 409,
      body: { errors: [`Preorder order ${paid} has no outstanding balance`] },
    });
    const owing = await place("orders/create", orderPayload({ financial_status: "partially_paid", total_outstanding: "10.00" }));
    await invoke(env.app, "POST", `/preorders/orders/${owing}/cancel`, { key: env.key });
    expect((await invoke(env.app, "POST", `/preorders/orders/${owing}/charge_balance`, { key: env.key })).status).toBe(409);
  });

  it("keeps the offer's limits.total.current_count true: units on its live preorder lines", async () => {
    const offerId = await seedOffer(env.app.pool, env.shopId, "Counted offer", "gid://shopify/SellingPlan/77");
    const currentCount = async () =>
      ((await invoke(env.app, "GET", `/preorders/offers/${offerId}/limits`, { key: env.key })).body as { total: { current_count: number } }).total.current_count;
    expect(await currentCount()).toBe(0);
    const first = await place("orders/create", orderPayload({ lines: [{ variant: 101, quantity: 3, plan: 77 }, { variant: 102, quantity: 4, plan: null }] }));
    await place("orders/create", orderPayload({ lines: [{ variant: 103, quantity: 2, plan: 77 }] }));
    expect(await currentCount()).toBe(5);
    expect((await invoke(env.app, "POST", `/preorders/orders/${first}/cancel`, { key: env.key })).status).toBe(202);
    expect(await currentCount()).toBe(2);
  });

  it("answers 404 for an unknown, malformed or other shop's order", async () => {
    const mine = await place("orders/create", orderPayload());
    const unknown = randomUUID();
    expect(await invoke(env.app, "GET", `/preorders/orders/${unknown}`, { key: env.key })).toMatchObject({ status: 404, body: { errors: [`Preorder order not found: ${unknown}`] } });
    expect(await invoke(env.app, "GET", "/preorders/orders/nope", { key: env.key })).toMatchObject({ status: 404, body: { errors: ["Preorder order not found: nope"] } });
    expect(await invoke(env.app, "GET", `/preorders/orders/${mine}`, { key: otherKey })).toMatchObject({ status: 404, body: { errors: [`Preorder order not found: ${mine}`] } });
    for (const action of ["release", "cancel", "charge_balance"]) {
      expect((await invoke(env.app, "POST", `/preorders/orders/${mine}/${action}`, { key: otherKey })).status).toBe(404);
    }
    expect((await getOrder(mine)).status).toBe("placed");
  });
});

describe("listing", () => {
  it("filters by status, variant, e-mail, offer and creation time; pages; validates", async () => {
    const shop = await createShopWithKey(env.app.pool, "List Shop");
    const listDomain = "list-orders.platform.local";
    await env.app.pool.query("update shops set platform_domain = $2 where id = $1", [shop.shopId, listDomain]);
    const a = await place("orders/create", orderPayload({ email: "Ann@Example.com", created_at: "2026-10-01T12:00:00Z", lines: [{ variant: 301, plan: 71 }] }), listDomain);
    const b = await place(
      "orders/create",
      orderPayload({ email: "bob@example.com", created_at: "2026-10-02T12:00:00Z", financial_status: "pending", total_outstanding: "100.00", lines: [{ variant: 302, plan: 72 }] }),
      listDomain,
    );
    const c = await place("orders/create", orderPayload({ email: "ann@example.com", created_at: "2026-10-03T12:00:00Z", lines: [{ variant: 301, plan: 72 }] }), listDomain);
    const offerB = await seedOffer(env.app.pool, shop.shopId, "Offer B", "gid://shopify/SellingPlan/72");
    expect(await relinkOfferOrderLines(env.app.pool, shop.shopId, offerB)).toBe(2);
    const ids = async (query: string) => {
      const answer = await invoke(env.app, "GET", `/preorders/orders${query}`, { key: shop.apiKey });
      expect(answer.status).toBe(200);
      return (answer.body as { orders: { id: string }[] }).orders.map((o) => o.id);
    };
    expect(await ids("")).toEqual([c, b, a]);
    expect(await ids("?status=awaiting_balance")).toEqual([b]);
    expect(await ids("?variant_id=301")).toEqual([c, a]);
    expect(await ids("?variant_id=gid://shopify/ProductVariant/302")).toEqual([b]);
    expect(await ids("?email=ANN@example.com")).toEqual([c, a]);
    expect(await ids(`?offer_id=${offerB}`)).toEqual([c, b]);
    expect(await ids("?created_from=2026-10-02&created_to=2026-10-02")).toEqual([b]);
    expect(await ids("?created_from=2026-10-02T12:00:01Z")).toEqual([c]);
    expect(await ids("?per_page=2&page=2")).toEqual([a]);
    const page = await invoke(env.app, "GET", "/preorders/orders?per_page=2", { key: shop.apiKey });
    expect(page.body).toMatchObject({ total: 3, page: 1, per_page: 2 });
    expect((await getOrder(c, shop.apiKey)).offer_ids).toEqual([offerB]);

    const bad = await invoke(env.app, "GET", "/preorders/orders?status=shipped&per_page=500&created_from=yesterday&colour=red", { key: shop.apiKey });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      errors: expect.arrayContaining([
        "status must be one of: placed, awaiting_balance, balance_collected, released, fulfilled, cancelled, refunded",
        "per_page must be at most 250",
        "created_from must be an ISO 8601 date or timestamp",
        "colour is not allowed",
      ]) as unknown,
    });
  });
});

describe("bulk actions", () => {
  it("refuses more than 1000 order ids with 422", async () => {
    const ids = Array.from({ length: 1001 }, () => randomUUID());
    for (const action of ["bulk_release", "bulk_cancel", "bulk_set_tags"]) {
      const body = action === "bulk_set_tags" ? { order_ids: ids, add: ["x"] } : { order_ids: ids };
      const answer = await invoke(env.app, "POST", `/preorders/orders/${action}`, { key: env.key, body });
      expect(answer).toMatchObject({ status: 422, body: { errors: ["order_ids must contain at most 1000 items"] } });
    }
    const noTags = await invoke(env.app, "POST", "/preorders/orders/bulk_set_tags", { key: env.key, body: { order_ids: [randomUUID()] } });
    expect(noTags).toMatchObject({ status: 422, body: { errors: ["add is required unless remove is given"] } });
  });

  it("bulk_release: one job, an outcome per order", async () => {
    const ready = await place("orders/create", orderPayload());
    const released = await place("orders/create", orderPayload());
    await invoke(env.app, "POST", `/preorders/orders/${released}/release`, { key: env.key });
    const owing = await place("orders/create", orderPayload({ financial_status: "partially_paid", total_outstanding: "5.00" }));
    const cancelled = await place("orders/create", orderPayload());
    await invoke(env.app, "POST", `/preorders/orders/${cancelled}/cancel`, { key: env.key });
    const foreign = await place("orders/create", orderPayload(), OTHER_DOMAIN);
    const unknown = randomUUID();
    const answer = await invoke(env.app, "POST", "/preorders/orders/bulk_release", { key: env.key, body: { order_ids: [ready, released, owing, cancelled, foreign, unknown, ready] } });
    expect(answer.status).toBe(202);
    const job = await finishedJob(answer.body);
    expect(job).toMatchObject({ status: "completed", total: 6, processed: 6 });
    expect(job.result.outcomes).toEqual([
      { order_id: ready, outcome: "released", reason: null },
      { order_id: released, outcome: "skipped", reason: "already released" },
      { order_id: owing, outcome: "refused", reason: expect.stringContaining("unpaid balance") as string },
      { order_id: cancelled, outcome: "refused", reason: `Preorder order ${cancelled} is already cancelled` },
      { order_id: foreign, outcome: "refused", reason: `Preorder order not found: ${foreign}` },
      { order_id: unknown, outcome: "refused", reason: `Preorder order not found: ${unknown}` },
    ]);
    expect(job.result.counts).toEqual({ released: 1, skipped: 1, refused: 4 });
    expect((await getOrder(ready)).status).toBe("released");
    expect((await getOrder(owing)).status).toBe("awaiting_balance");
    expect((await getOrder(foreign, otherKey)).status).toBe("placed");

    const forced = await finishedJob((await invoke(env.app, "POST", "/preorders/orders/bulk_release", { key: env.key, body: { order_ids: [owing], force: true } })).body);
    expect(forced.result.outcomes).toEqual([{ order_id: owing, outcome: "released", reason: null }]);
  });

  it("bulk_cancel: one job, an outcome per order", async () => {
    const live = await place("orders/create", orderPayload());
    const shipped = await place("orders/fulfilled", orderPayload({ fulfillment_status: "fulfilled" }));
    const answer = await invoke(env.app, "POST", "/preorders/orders/bulk_cancel", { key: env.key, body: { order_ids: [live, shipped, live] } });
    const job = await finishedJob(answer.body);
    expect(job.result.outcomes).toEqual([
      { order_id: live, outcome: "cancelled", reason: null },
      { order_id: shipped, outcome: "refused", reason: `Preorder order ${shipped} is already fulfilled` },
    ]);
    const again = await finishedJob((await invoke(env.app, "POST", "/preorders/orders/bulk_cancel", { key: env.key, body: { order_ids: [live] } })).body);
    expect(again.result.outcomes).toEqual([{ order_id: live, outcome: "skipped", reason: "already cancelled" }]);
  });
});

describe("preorder counts", () => {
  it("counts units on live preorder lines per variant, live and through the recalculation job", async () => {
    const shop = await createShopWithKey(env.app.pool, "Counts Shop");
    const countsDomain = "counts.platform.local";
    await env.app.pool.query("update shops set platform_domain = $2 where id = $1", [shop.shopId, countsDomain]);
    await place("orders/create", orderPayload({ lines: [{ variant: 501, quantity: 3 }, { variant: 502, quantity: 1 }, { variant: 503, quantity: 9, plan: null }] }), countsDomain);
    await place("orders/create", orderPayload({ lines: [{ variant: 501, quantity: 2 }] }), countsDomain);
    const gone = await place("orders/create", orderPayload({ lines: [{ variant: 502, quantity: 4 }] }), countsDomain);
    await invoke(env.app, "POST", `/preorders/orders/${gone}/cancel`, { key: shop.apiKey });
    // another shop's orders of the same variant never count here
    await place("orders/create", orderPayload({ lines: [{ variant: 501, quantity: 100 }] }), OTHER_DOMAIN);

    const live = await preorderCountsForVariants(env.app.pool, shop.shopId, ["501", "gid://shopify/ProductVariant/502", 503, "504"]);
    expect([...live]).toEqual([
      ["501", 5],
      ["gid://shopify/ProductVariant/502", 1],
      ["503", 0],
      ["504", 0],
    ]);
    // kept by ingestion and cancellation already
    const stored = await storedVariantCounts(env.app.pool, shop.shopId, ["501", "502"]);
    expect(Object.fromEntries(stored)).toEqual({ "gid://shopify/ProductVariant/501": 5, "gid://shopify/ProductVariant/502": 1 });

    await env.app.pool.query("delete from preorder_variant_counts where shop_id = $1", [shop.shopId]);
    const answer = await invoke(env.app, "POST", "/preorders/product_variants/bulk_recalculate_preorder_counts", { key: shop.apiKey, body: { variant_ids: ["501", "502", "503", 504] } });
    expect(answer.status).toBe(202);
    const job = await finishedJob(answer.body, shop.apiKey);
    expect(job).toMatchObject({ status: "completed", result: { variants: 4 } });
    const recomputed = await storedVariantCounts(env.app.pool, shop.shopId, ["501", "502", "503", "504"]);
    expect(Object.fromEntries(recomputed)).toEqual({
      "gid://shopify/ProductVariant/501": 5,
      "gid://shopify/ProductVariant/502": 1,
      "gid://shopify/ProductVariant/503": 0,
      "gid://shopify/ProductVariant/504": 0,
    });
    const tooMany = await invoke(env.app, "POST", "/preorders/product_variants/bulk_recalculate_preorder_counts", {
      key: shop.apiKey,
      body: { variant_ids: Array.from({ length: 5001 }, (_, i) => String(i + 1)) },
    });
    expect(tooMany).toMatchObject({ status: 422, body: { errors: ["variant_ids must contain at most 5000 items"] } });
  });
});

describe("against the platform emulator", () => {
  it("an order placed on a selling plan arrives by webhook; charge_balance waits for the platform's payment; bulk_set_tags tags it there", async () => {
    const client = await env.platform.clientFor(env.app.pool, env.shopId);
    const variant = env.emulator.store.variants[0];
    if (!variant) throw new Error("no seeded variant");
    const variantGid = `gid://shopify/ProductVariant/${variant.id}`;
    const group = await createSellingPlanGroup(
      client,
      {
        name: "Preorder",
        merchantCode: "preorder-orders-test",
        options: ["Preorder"],
        sellingPlansToCreate: [
          {
            name: "Deposit 50%",
            options: ["Deposit"],
            category: "PRE_ORDER",
            billingPolicy: { fixed: { checkoutCharge: { type: "PERCENTAGE", value: { percentage: 50 } }, remainingBalanceChargeTrigger: "EXACT_TIME", remainingBalanceChargeExactTime: "2027-03-01T00:00:00Z" } },
            deliveryPolicy: { fixed: { fulfillmentTrigger: "ASAP" } },
          },
        ],
      } as never,
      [variantGid],
    );
    const planGid = group.sellingPlans.nodes[0]?.id;
    if (!planGid) throw new Error("no plan");
    const offerId = await seedOffer(env.app.pool, env.shopId, "E2E offer", planGid);

    const created = await fetch(`${env.emulator.origin}/admin/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ line_items: [{ variant_id: variant.id, quantity: 2, price: "30.00" }], selling_plan_id: planGid, email: "e2e@example.com", financial_status: "partially_paid" }),
    });
    expect(created.status).toBe(201);
    const { order: platformOrder } = (await created.json()) as { order: { admin_graphql_api_id: string; id: number } };
    await env.emulator.webhooksSettled();
    await processed();
    const listed = (await invoke(env.app, "GET", "/preorders/orders?email=e2e@example.com", { key: env.key })).body as { orders: OrderBody[] };
    const order = listed.orders[0];
    if (!order) throw new Error("the order did not arrive");
    expect(order).toMatchObject({ status: "awaiting_balance", total_outstanding: "30.00", offer_ids: [offerId] });

    const charge = await invoke(env.app, "POST", `/preorders/orders/${order.id}/charge_balance`, { key: env.key });
    expect(charge.status).toBe(202);
    const chargeJob = await finishedJob(charge.body);
    expect(chargeJob).toMatchObject({ status: "completed", result: { order_id: order.id, outcome: "requested", status: "awaiting_balance" } });
    expect((await getOrder(order.id)).balance_collection_requested_at).not.toBeNull();

    const paid = await fetch(`${env.emulator.origin}/admin/orders/${platformOrder.id}/pay`, { method: "POST" });
    expect(paid.status).toBe(200);
    await env.emulator.webhooksSettled();
    await processed();
    expect((await getOrder(order.id)).status).toBe("balance_collected");

    const tag = await invoke(env.app, "POST", "/preorders/orders/bulk_set_tags", { key: env.key, body: { order_ids: [order.id], add: ["preorder", "wave-1"] } });
    const tagJob = await finishedJob(tag.body);
    expect(tagJob.result.outcomes).toEqual([{ order_id: order.id, outcome: "tagged", reason: null }]);
    expect((await getPlatformOrder(client, platformOrder.admin_graphql_api_id))?.tags).toEqual(expect.arrayContaining(["preorder", "wave-1"]));
    expect((await getOrder(order.id)).tags).toEqual(["preorder", "wave-1"]);
    const untag = await finishedJob((await invoke(env.app, "POST", "/preorders/orders/bulk_set_tags", { key: env.key, body: { order_ids: [order.id], remove: ["wave-1"] } })).body);
    expect(untag.result.outcomes).toEqual([{ order_id: order.id, outcome: "tagged", reason: null }]);
    expect((await getPlatformOrder(client, platformOrder.admin_graphql_api_id))?.tags).toEqual(["preorder"]);
    const same = await finishedJob((await invoke(env.app, "POST", "/preorders/orders/bulk_set_tags", { key: env.key, body: { order_ids: [order.id], add: ["preorder"] } })).body);
    expect(same.result.outcomes).toEqual([{ order_id: order.id, outcome: "skipped", reason: "tags already as requested" }]);
  });
});
