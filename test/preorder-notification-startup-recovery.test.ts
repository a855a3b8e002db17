import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { type Service, startService } from "../src/runtime/service.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { insertOffer, orderPayload, placeOrder, settledNotifications, useDomain } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";

// The service's worker (startService, as `npm run worker` runs it) queues one preorder
// notification recovery sweep, with no grace period, when it starts, as it does for back-in-stock
// alerts: a row a killed worker left pending goes out at once, not at the next cron run.
const env = useTestEnv({ shop: "Startup Recover Shop", smtp: true, dataDir: true, worker: true });
const DOMAIN = "startup-recover-shop.platform.local";
let service: Service | undefined;

afterAll(async () => {
  await service?.stop();
});

describe("a worker that starts", () => {
  it("sends at once a notification left pending with no job, updated moments ago (inside the cron sweep's grace period)", { timeout: 30_000 }, async () => {
    await useDomain(env.app.pool, env.shopId, DOMAIN);
    const offer = await insertOffer(env.app.pool, env.shopId, {}, "Startup lamp");
    const orderId = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "startup@example.com" }));
    await settledNotifications(env, orderId, "confirmation");
    // The test env's worker stops (it has no crontab and no startup sweep); what a killed worker
    // left behind: a claimed row whose send job is gone.
    await env.stopWorker();
    const { rows } = await env.app.pool.query<{ id: string }>(
      `insert into preorder_notifications (shop_id, order_id, stage, event_key, channel, recipient, locale)
       values ($1, $2, 'shipping_date_change', $3, 'email', 'startup@example.com', 'en') returning id`,
      [env.shopId, orderId, randomUUID()],
    );
    const id = rows[0]?.id ?? "";
    const before = await env.app.pool.query("select 1 from graphile_worker.jobs where key like $1", [`%${id}`]);
    expect(before.rowCount).toBe(0);

    // No crontab: only what the start itself queues can send it.
    service = await startService(env.config, env.log, { web: false, worker: true, migrate: false, demo: false, worker_options: { pollInterval: 100, cron: false } });
    const row = await waitFor(
      "the pending row to be sent",
      async () => {
        const { rows: ledger } = await env.app.pool.query<{ status: string; attempts: number; provider_message_id: string | null }>(
          "select status, attempts, provider_message_id from preorder_notifications where id = $1",
          [id],
        );
        return ledger[0]?.status === "pending" ? undefined : ledger[0];
      },
      20_000,
    );
    expect(row).toMatchObject({ status: "sent", attempts: 1 });
    // Sent under the row's own message id.
    expect(row.provider_message_id).toContain(`preorder-${id}`);
    expect(env.sink.to("startup@example.com").filter((m) => m.subject.startsWith("New shipping date"))).toHaveLength(1);
  });
});
