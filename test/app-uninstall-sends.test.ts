import { beforeAll, describe, expect, it } from "vitest";
import { notificationSendTask } from "../src/preorders/notifications/task-refs.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { type NotificationBody, insertOffer, orderPayload, placeOrder, useDomain } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";
import { deliverWebhook, webhooksProcessed } from "./helpers/webhook-delivery.ts";

// Nothing is sent for a shop the app is uninstalled from (decision 0222), in the preorder area
// too: an order that still arrives (a delivery retried after the uninstall) is recorded, its
// confirmation is claimed and stays pending, unsent.

const env = useTestEnv({ shop: "Gone Shop", smtp: true, worker: true });
const DOMAIN = "gone-shop.myshopify.com";

beforeAll(async () => {
  await useDomain(env.pool, env.shopId, DOMAIN);
});

describe("an uninstalled shop's preorder notifications", () => {
  it("are claimed and never sent", async () => {
    await deliverWebhook(env.app.origin, "app/uninstalled", { id: 548380009, name: "Gone Shop", domain: DOMAIN, myshopify_domain: DOMAIN }, DOMAIN);
    await webhooksProcessed(env.pool, env.shopId);
    const offer = await insertOffer(env.pool, env.shopId);
    const orderId = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "late-buyer@example.com" }));
    const claimed = await waitFor("the confirmation claimed", async () => {
      const answer = await invoke(env.app, "GET", `/preorders/notifications?order_id=${orderId}&stage=confirmation`, { key: env.key });
      return (answer.body as { notifications: NotificationBody[] }).notifications[0];
    });
    await waitFor("its send job done", async () => {
      const { rows } = await env.pool.query("select 1 from graphile_worker.jobs where task_identifier = $1", [notificationSendTask.name]);
      return rows.length === 0 ? true : undefined;
    });
    const after = await invoke(env.app, "GET", `/preorders/notifications/${claimed.id}`, { key: env.key });
    expect(after.body).toMatchObject({ id: claimed.id, status: "pending", sent_at: null });
    expect(env.sink.to("late-buyer@example.com")).toEqual([]);
  });
});
