import { beforeAll, describe, expect, it } from "vitest";
import { recoverAlerts } from "../src/back_in_stock/alerts/recovery.ts";
import { scanReminders } from "../src/back_in_stock/alerts/reminders.ts";
import { notificationSendTask } from "../src/preorders/notifications/task-refs.ts";
import { newShop, seedSignups, seedVariants } from "./helpers/bis-seed.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { type NotificationBody, insertOffer, orderPayload, placeOrder, useDomain } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";
import { deliverWebhook, webhooksProcessed } from "./helpers/webhook-delivery.ts";

// Nothing is sent for a shop the app is uninstalled from (decision 0222): a preorder
// confirmation (an order that still arrives, a delivery retried after the uninstall, is recorded,
// its confirmation claimed) and a back-in-stock reminder stay pending, unsent.

const env = useTestEnv({ shop: "Gone Shop", smtp: true, worker: true });
const DOMAIN = "gone-shop.myshopify.com";

beforeAll(async () => {
  await useDomain(env.pool, env.shopId, DOMAIN);
});

describe("an uninstalled shop's messages", () => {
  it("a preorder confirmation is claimed and never sent", async () => {
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

  it("a back-in-stock reminder falling due after the uninstall is claimed and never sent", async () => {
    const shop = await newShop(env.app, "Remind Gone", { delivery: { reminder_delay_hours: 1 } });
    expect((await invoke(env.app, "PATCH", "/back_in_stock/templates/reminder/en", { key: shop.key, body: { enabled: true } })).status).toBe(202);
    await seedVariants(env.pool, shop.shopId, [{ n: 701, product: 70, available: 0, productTitle: "Gone Boots" }]);
    const [signup] = await seedSignups(env.pool, shop.shopId, [{ variant: 701, product: 70, contact: "remind-gone@example.com", createdAt: new Date(Date.now() - 86_400_000).toISOString() }]);
    await deliverWebhook(env.app.origin, "inventory_levels/update", { inventory_item_id: 701, location_id: 1, available: 5, updated_at: new Date(Date.now() + 1000).toISOString() }, shop.domain);
    await webhooksProcessed(env.pool, shop.shopId);
    await waitFor("the initial alert", async () => (env.sink.to("remind-gone@example.com").length === 1 ? true : undefined));

    await deliverWebhook(env.app.origin, "app/uninstalled", { id: 548380010, myshopify_domain: shop.domain }, shop.domain);
    await webhooksProcessed(env.pool, shop.shopId);
    await env.pool.query("update bis_reminder_queue set initial_sent_at = now() - interval '2 hours' where signup_id = $1", [signup]);
    const result = await scanReminders({ pool: env.workerPool, log: env.log, config: env.config, platform: env.platform, channels: env.channels });
    expect(result).toMatchObject({ due: 1, claimed: 1, sent: { sent: 0, skipped: 1 } });
    const { rows } = await env.pool.query("select status from bis_ledger where signup_id = $1 and stage = 'reminder'", [signup]);
    expect(rows).toEqual([{ status: "pending" }]);
    expect(env.sink.to("remind-gone@example.com").map((m) => m.subject)).toEqual(["Gone Boots is back in stock"]);

    // The recovery sweep leaves it while the app is uninstalled (its send would skip it again), and
    // takes it once the shop is back.
    const deps = { pool: env.workerPool, log: env.log, config: env.config, platform: env.platform, channels: env.channels };
    expect((await recoverAlerts(deps, { graceSeconds: 0 })).messages.requeued).toBe(0);
    await env.pool.query("update shops set platform_uninstalled_at = null where id = $1", [shop.shopId]);
    expect((await recoverAlerts(deps, { graceSeconds: 0 })).messages.requeued).toBe(1);
    await waitFor("the reminder after the reinstall", async () => (env.sink.to("remind-gone@example.com").length === 2 ? true : undefined));
  });
});
