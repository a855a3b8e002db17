import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { insertOffer, orderPayload, placeOrder, runNow, useDomain } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({ shop: "Order Fields Shop", worker: true });
const DOMAIN = "order-fields-shop.platform.local";
const DAY_MS = 86_400_000;
let otherKey: string;

beforeAll(async () => {
  await useDomain(env.app.pool, env.shopId, DOMAIN);
  ({ apiKey: otherKey } = await createShopWithKey(env.app.pool, "Other Fields Shop"));
  // The shop's tags, and auto-collect off so its run decides without the platform.
  const patched = await invoke(env.app, "PATCH", "/preorders/settings", { key: env.key, body: { orders: { tags: ["shop-preorder"], auto_collect_enabled: false } } });
  expect(patched.status).toBe(202);
});

interface OrderBody {
  id: string;
  tags: string[];
  app_tags: string[];
  balance_due_at: string | null;
  auto_collect: string | null;
  auto_collect_result: string | null;
  auto_collect_ran_at: string | null;
}

describe("the preorder order answer shows what ingestion learned", () => {
  it("balance_due_at, auto_collect, the app's tags, then the auto-collect run's result (GET and list)", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId, {
      payments: { remaining_balance: { auto_collect: true, due: { type: "days_after_checkout", days: 5 } } },
      checkout: { order_tags: { tags: ["offer-tag"] } },
    });
    const createdAt = new Date(Date.now() - 60_000).toISOString();
    const orderId = await placeOrder(
      env,
      DOMAIN,
      "orders/create",
      orderPayload({ plan: offer.plan, created_at: createdAt, financial_status: "partially_paid", total_outstanding: "50.00", tags: "vip" }),
    );

    const got = await invoke(env.app, "GET", `/preorders/orders/${orderId}`, { key: env.key });
    expect(got.status).toBe(200);
    const body = got.body as OrderBody;
    expect(body).toMatchObject({
      balance_due_at: new Date(Date.parse(createdAt) + 5 * DAY_MS).toISOString(),
      auto_collect: "due_date",
      auto_collect_result: null,
      auto_collect_ran_at: null,
    });
    expect([...body.app_tags].sort()).toEqual(["offer-tag", "shop-preorder"]);
    expect(body.tags).toEqual(expect.arrayContaining(["vip", "offer-tag", "shop-preorder"]));

    // The due-date charge, run now: the shop's switch is off, so it records why it did not charge.
    await runNow(env.app.pool, `preorders_auto_collect:${orderId}`);
    const ran = await waitFor("the auto-collect run shown on the order", async () => {
      const answer = await invoke(env.app, "GET", `/preorders/orders/${orderId}`, { key: env.key });
      const order = answer.body as OrderBody;
      return order.auto_collect_result === null ? undefined : order;
    });
    expect(ran).toMatchObject({ auto_collect: "due_date", auto_collect_result: "skipped: auto-collect is off for the shop" });
    expect(Date.parse(ran.auto_collect_ran_at ?? "")).toBeGreaterThan(Date.now() - 60_000);

    const list = await invoke(env.app, "GET", "/preorders/orders", { key: env.key });
    expect(list.status).toBe(200);
    const listed = (list.body as { orders: OrderBody[] }).orders.find((o) => o.id === orderId);
    expect(listed).toMatchObject({ auto_collect: "due_date", auto_collect_result: "skipped: auto-collect is off for the shop", balance_due_at: body.balance_due_at });

    expect(await invoke(env.app, "GET", `/preorders/orders/${orderId}`, { key: otherKey })).toMatchObject({ status: 404, body: { errors: [`Preorder order not found: ${orderId}`] } });
  });

  it("an order paid in full has no due date and no auto-collect; its app tags are the shop's and the offer's default", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId);
    const orderId = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan }));
    const got = await invoke(env.app, "GET", `/preorders/orders/${orderId}`, { key: env.key });
    expect(got).toMatchObject({ status: 200, body: { balance_due_at: null, auto_collect: null, auto_collect_result: null, auto_collect_ran_at: null, app_tags: ["shop-preorder", "preorder"] } });
  });
});
