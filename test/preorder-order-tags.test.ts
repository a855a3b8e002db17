import { beforeAll, describe, expect, it } from "vitest";
import { getOrder as getPlatformOrder } from "../src/platform/operations/orders.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { emulatorOrder, emulatorPlan, insertOfferOnPlan, orderPayload, placeOrder, runNow, workerJob } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({
  shop: "Tags Shop",
  emulator: { seed: { products: 3, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1 }, throttle: { maximumAvailable: 100_000, restoreRate: 100_000 }, webhooks: { backoffMs: 50 } },
  connect: true,
  worker: true,
});

let planGid: string;
let variantId: number;
let offerId: string;

beforeAll(async () => {
  ({ planGid, variantId } = await emulatorPlan(env, 0));
  offerId = await insertOfferOnPlan(env.app.pool, env.shopId, planGid, { checkout: { order_tags: { tags: ["preorder", "spring-drop"] } } });
  const set = await invoke(env.app, "PATCH", "/preorders/settings", { key: env.key, body: { orders: { tags: ["ship-later"] } } });
  expect(set.status).toBe(202);
});

async function platformTags(platformOrderId: string): Promise<string[]> {
  const client = await env.platform.clientFor(env.app.pool, env.shopId);
  return (await getPlatformOrder(client, platformOrderId))?.tags ?? [];
}

async function localTags(orderId: string): Promise<string[]> {
  return ((await invoke(env.app, "GET", `/preorders/orders/${orderId}`, { key: env.key })).body as { tags: string[] }).tags;
}

describe("order tags on ingest", () => {
  it("applies the offers' checkout.order_tags and the shop's orders.tags to the order, and pushes them to the platform order", async () => {
    const { orderId, platform } = await emulatorOrder(env, { line_items: [{ variant_id: variantId, quantity: 1, price: "40.00" }], selling_plan_id: planGid, email: "tags@example.com", financial_status: "paid", tags: "vip" });
    expect(await localTags(orderId)).toEqual(["vip", "ship-later", "preorder", "spring-drop"]);
    const pushed = await waitFor("the tags on the platform order", async () => {
      const tags = await platformTags(platform.admin_graphql_api_id);
      return tags.includes("spring-drop") ? tags : undefined;
    });
    expect(pushed).toEqual(expect.arrayContaining(["vip", "ship-later", "preorder", "spring-drop"]));
    const order = (await invoke(env.app, "GET", `/preorders/orders/${orderId}`, { key: env.key })).body as { offer_ids: string[] };
    expect(order.offer_ids).toEqual([offerId]);
  });

  it("keeps the app's tags when a later description of the order does not carry them yet", async () => {
    const payload = orderPayload({ plan: Number(planGid.split("/").pop()), tags: "gift" });
    const orderId = await placeOrder(env, env.emulator.shopDomain, "orders/create", payload);
    await placeOrder(env, env.emulator.shopDomain, "orders/paid", { ...payload, updated_at: new Date(Date.now() + 5000).toISOString() });
    expect(await localTags(orderId)).toEqual(["gift", "ship-later", "preorder", "spring-drop"]);
  });

  it("retries the push through graphile-worker while the platform fails", { timeout: 40_000 }, async () => {
    env.emulator.setFaults({ errorRate: 1 });
    try {
      const { orderId, platform } = await emulatorOrder(env, { line_items: [{ variant_id: variantId, quantity: 1 }], selling_plan_id: planGid, email: "retry@example.com", financial_status: "paid" });
      const key = `preorders_order_tags:${orderId}`;
      const failed = await waitFor("a failed attempt of the tag push", async () => {
        const job = await workerJob(env.app.pool, key);
        return job && job.attempts >= 1 && job.last_error ? job : undefined;
      }, 30_000);
      expect(failed.last_error).toBeTruthy();
      env.emulator.setFaults({});
      await runNow(env.app.pool, key);
      await waitFor("the tags after the retry", async () => ((await platformTags(platform.admin_graphql_api_id)).includes("spring-drop") ? true : undefined));
      // Completed, not waiting to retry: graphile-worker removes a finished job in a batch after its run.
      await waitFor("the tag push's job to be removed", async () => ((await workerJob(env.app.pool, key)) === undefined ? true : undefined));
    } finally {
      env.emulator.setFaults({});
    }
  });
});
