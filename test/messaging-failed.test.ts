import { beforeAll, describe, expect, it } from "vitest";
import { listFailedMessages, resendFailedMessages } from "../src/messaging/failed.ts";
import { invoke } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { insertOffer, orderPayload, placeOrder, settledNotifications, useDomain } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";
import { runNow } from "./helpers/queue.ts";

// Preorder customer notifications keep the same promise as back-in-stock alerts: an outage longer
// than the old 5-attempt budget loses nothing, and a failed message of either area can be sent again.

const env = useTestEnv({ shop: "Failed Messages Shop", smtp: true, dataDir: true, worker: { poolSize: 12, pollInterval: 50 } });
const DOMAIN = "failed-messages-shop.platform.local";

beforeAll(async () => {
  await useDomain(env.app.pool, env.shopId, DOMAIN);
});

async function notificationJob(id: string): Promise<{ attempts: number; max_attempts: number } | undefined> {
  const { rows } = await env.app.pool.query<{ attempts: number; max_attempts: number }>(
    "select attempts, max_attempts from graphile_worker.jobs where key = $1 and locked_at is null",
    [`preorders_notification_send:${id}`],
  );
  return rows[0];
}

describe("preorder notifications through an outage", () => {
  it("stay pending with the last error past 5 attempts, then are sent once", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId);
    env.sink.outage.down = true;
    let id: string;
    try {
      const orderId = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "outage-buyer@example.com" }));
      id = await waitFor("the confirmation to be claimed", async () => {
        const { rows } = await env.app.pool.query<{ id: string }>("select id from preorder_notifications where order_id = $1", [orderId]);
        return rows[0]?.id;
      });
      for (let round = 1; round <= 7; round++) {
        await waitFor(`attempt ${round} to fail`, async () => {
          const job = await notificationJob(id);
          return job && job.attempts >= round ? true : undefined;
        });
        await runNow(env.app.pool, `preorders_notification_send:${id}`);
      }
      const pending = await invoke(env.app, "GET", `/preorders/notifications/${id}`, { key: env.key });
      expect(pending.body).toMatchObject({ status: "pending", sent_at: null });
      expect((pending.body as { error: string }).error).toMatch(/421|SMTP/);
    } finally {
      env.sink.outage.down = false;
    }
    const sent = await waitFor("the confirmation to be sent", async () => {
      await runNow(env.app.pool, `preorders_notification_send:${id}`);
      const answer = await invoke(env.app, "GET", `/preorders/notifications/${id}`, { key: env.key });
      return (answer.body as { status: string }).status === "sent" ? (answer.body as { attempts: number }) : undefined;
    });
    expect(sent.attempts).toBeGreaterThanOrEqual(8);
    expect(env.sink.to("outage-buyer@example.com")).toHaveLength(1);
  });
});

describe("failed messages of both areas", () => {
  it("are listed with their reason and sent again with the same message id", async () => {
    // A back-in-stock alert and a preorder confirmation, both refused for good (550).
    env.sink.reject.add("refused-alert@example.com");
    env.sink.reject.add("refused-buyer@example.com");
    await seedVariants(env.app.pool, env.shopId, [{ n: 31, product: 31, available: 0 }]);
    const { rows } = await env.app.pool.query<{ id: string }>(
      "insert into bis_signups (shop_id, variant_id, channel, contact, consent) values ($1, $2, 'email', 'refused-alert@example.com', true) returning id",
      [env.shopId, variantGid(31)],
    );
    const signupId = rows[0]?.id ?? "";
    expect((await invoke(env.app, "POST", `/back_in_stock/signups/${signupId}/notify`, { key: env.key })).status).toBe(202);
    const offer = await insertOffer(env.app.pool, env.shopId);
    const orderId = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "refused-buyer@example.com" }));
    const [notification] = await settledNotifications(env, orderId, "confirmation");
    expect(notification?.status).toBe("failed");

    const failed = await waitFor("both failures to be listed", async () => {
      const list = await listFailedMessages(env.app.pool, { shopId: env.shopId });
      return list.length === 2 ? list : undefined;
    });
    expect(failed.map((f) => [f.area, f.recipient]).sort()).toEqual([
      ["back_in_stock", "refused-alert@example.com"],
      ["preorders", "refused-buyer@example.com"],
    ]);
    for (const f of failed) expect(f.error).toMatch(/550/);
    expect(await listFailedMessages(env.app.pool, { shopId: env.shopId, area: "preorders" })).toHaveLength(1);

    env.sink.reject.delete("refused-alert@example.com");
    env.sink.reject.delete("refused-buyer@example.com");
    expect(await resendFailedMessages(env.app.pool, { shopId: env.shopId }, 24)).toEqual({ back_in_stock: 1, preorders: 1 });
    await waitFor("both to be delivered", async () =>
      env.sink.to("refused-alert@example.com").length === 1 && env.sink.to("refused-buyer@example.com").length === 1 ? true : undefined,
    );
    const alert = env.sink.to("refused-alert@example.com")[0];
    const { rows: ledger } = await env.app.pool.query<{ id: string }>("select id from bis_ledger where signup_id = $1", [signupId]);
    expect(alert?.messageId).toContain(ledger[0]?.id ?? "?");
    await waitFor("the signup to read notified", async () => {
      const answer = await invoke(env.app, "GET", `/back_in_stock/signups/${signupId}`, { key: env.key });
      return (answer.body as { status: string }).status === "notified" ? true : undefined;
    });
    expect(await listFailedMessages(env.app.pool, { shopId: env.shopId })).toEqual([]);
    // Nothing failed is left: a second resend sends nothing.
    expect(await resendFailedMessages(env.app.pool, { shopId: env.shopId }, 24)).toEqual({ back_in_stock: 0, preorders: 0 });
  });
});
