import { describe, expect, it } from "vitest";
import type { Channels, ChannelSender, OutboundMessage, SendResult } from "../src/channels/index.ts";
import type { TaskContext } from "../src/core/tasks.ts";
import { sendNotification } from "../src/preorders/notifications/ledger.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";

// Preorder notifications go through the same send pipeline as alerts (src/messaging/ledger):
// a pending row is leased to the sender's connection, never locked in a transaction held open
// across the send (a slow SMTP server then held a row lock and a pool connection for its whole
// answer), and two senders of one row at once send it once.

const env = useTestEnv({ shop: false });

/** E-mail that waits for `release` before it answers, recording each send. */
function gatedChannels(sent: OutboundMessage[], gate: Promise<void>, started: () => void): Channels {
  const email: ChannelSender = {
    channel: "email",
    async send(message): Promise<SendResult> {
      started();
      await gate;
      sent.push(message);
      return { providerMessageId: message.id, accepted: true };
    },
    close: async () => undefined,
  };
  return { email, sms: email, get: () => email, close: async () => undefined };
}

async function pendingNotification(name: string): Promise<string> {
  const { shopId } = await createShopWithKey(env.pool, name);
  const { rows: orders } = await env.pool.query<{ id: string }>(
    `insert into preorder_orders (shop_id, platform_order_id, name, email, currency, total_price, total_outstanding, platform_created_at, platform_updated_at)
     values ($1, 'gid://shopify/Order/1', '#1001', 'lease@example.com', 'EUR', 10, 0, now(), now()) returning id`,
    [shopId],
  );
  const { rows } = await env.pool.query<{ id: string }>(
    `insert into preorder_notifications (shop_id, order_id, stage, channel, recipient, locale)
     values ($1, $2, 'confirmation', 'email', 'lease@example.com', 'en') returning id`,
    [shopId, orders[0]?.id],
  );
  return rows[0]?.id ?? "";
}

function taskContext(channels: Channels): TaskContext {
  return { pool: env.pool, log: env.log, config: env.config, platform: testPlatformRuntime(), channels, workerJobId: "1", attempt: 1, maxAttempts: 5, signal: undefined };
}

describe("the send lease of preorder notifications", () => {
  it("holds no transaction open across the send, leases the row, and a second sender of the row sends nothing", async () => {
    const id = await pendingNotification("Preorder Lease Shop");
    const sent: OutboundMessage[] = [];
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inFlight = (): void => undefined;
    const sending = new Promise<void>((resolve) => (inFlight = resolve));
    const ctx = taskContext(gatedChannels(sent, gate, () => inFlight()));

    const first = sendNotification(ctx, id);
    await sending;
    // Mid-send: the row is leased to a live connection, and no connection sits in a transaction.
    const { rows: lease } = await env.pool.query<{ lease_pid: number | null; status: string }>("select lease_pid, status from preorder_notifications where id = $1", [id]);
    expect(lease[0]?.status).toBe("pending");
    expect(typeof lease[0]?.lease_pid).toBe("number");
    const { rows: open } = await env.pool.query("select pid from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'");
    expect(open).toHaveLength(0);
    expect(await sendNotification(ctx, id)).toBe("skipped");

    release();
    expect(await first).toBe("sent");
    expect(sent.map((m) => m.id)).toEqual([`preorder-${id}`]);
    const { rows } = await env.pool.query<{ status: string; lease_pid: number | null; attempts: number }>("select status, lease_pid, attempts from preorder_notifications where id = $1", [id]);
    expect(rows[0]).toEqual({ status: "sent", lease_pid: null, attempts: 1 });
  });
});
