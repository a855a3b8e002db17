import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { TASKS } from "../tasks/index.ts";
import { TaskRegistry } from "../src/core/task-registry.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { type NotificationBody, insertOffer, orderPayload, placeOrder, settledNotifications, useDomain } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({ shop: "Recover Shop", smtp: true, worker: true });
const DOMAIN = "recover-shop.platform.local";
const EMAIL = "recover@example.com";
const SEND = "preorders_notification_send";
let orderId: string;

beforeAll(async () => {
  await useDomain(env.app.pool, env.shopId, DOMAIN);
  const offer = await insertOffer(env.app.pool, env.shopId);
  orderId = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: EMAIL }));
  await settledNotifications(env, orderId, "confirmation");
});

/** A ledger row of a shipping date change, pending, as a claim leaves it (its job is up to the caller). */
async function pendingRow(options: { updatedAgo?: string; createdAgo?: string } = {}): Promise<string> {
  const { rows } = await env.app.pool.query<{ id: string }>(
    `insert into preorder_notifications (shop_id, order_id, stage, event_key, channel, recipient, locale, created_at, updated_at)
     values ($1, $2, 'shipping_date_change', $3, 'email', $4, 'en', now() - $5::interval, now() - $6::interval) returning id`,
    [env.shopId, orderId, randomUUID(), EMAIL, options.createdAgo ?? "10 minutes", options.updatedAgo ?? "10 minutes"],
  );
  return rows[0]?.id ?? "";
}

async function addSendJob(id: string, options: { maxAttempts: number; runAt?: string }): Promise<void> {
  await env.app.pool.query(
    `select graphile_worker.add_job($1, json_build_object('notification_id', $2::text), max_attempts => $3, job_key => $1 || ':' || $2, run_at => coalesce($4::timestamptz, now()))`,
    [SEND, id, options.maxAttempts, options.runAt ?? null],
  );
}

async function notification(id: string): Promise<NotificationBody> {
  const answer = await invoke(env.app, "GET", `/preorders/notifications?order_id=${orderId}&stage=shipping_date_change`, { key: env.key });
  expect(answer.status).toBe(200);
  const found = (answer.body as { notifications: NotificationBody[] }).notifications.find((n) => n.id === id);
  if (!found) throw new Error(`notification ${id} is not listed`);
  return found;
}

async function recover(graceSeconds: number): Promise<void> {
  const key = `recover-${randomUUID()}`;
  await env.app.pool.query("select graphile_worker.add_job('preorders_notification_recover', json_build_object('grace_seconds', $1::int), job_key => $2)", [graceSeconds, key]);
  await waitFor("the recovery sweep ran", async () => {
    const { rows } = await env.app.pool.query("select 1 from graphile_worker.jobs where key = $1", [key]);
    return rows.length === 0 ? true : undefined;
  });
}

describe("recovery of preorder notifications left pending", () => {
  it("is in the crontab every 5 minutes", () => {
    const items = new TaskRegistry(TASKS).cronItems().filter((i) => i.task === "preorders_notification_recover");
    expect(items).toHaveLength(1);
    expect(items[0]?.payload).toEqual({ grace_seconds: 300 });
  });

  it("marks failed a row whose send job ran out of attempts on an error it could not record, with the job's error", async () => {
    // Settings that no longer load: the sender throws before it can mark the row (a non-channel error).
    await env.app.pool.query(
      `insert into preorder_shop_settings (shop_id, settings) values ($1, '{"orders":{"tags":"not-a-list"}}')
       on conflict (shop_id) do update set settings = excluded.settings`,
      [env.shopId],
    );
    const id = await pendingRow();
    await addSendJob(id, { maxAttempts: 1 });
    const dead = await waitFor("the send job ran out of attempts", async () => {
      const { rows } = await env.app.pool.query<{ attempts: number; last_error: string | null; locked_at: Date | null }>(
        "select attempts, last_error, locked_at from graphile_worker.jobs where key = $1",
        [`${SEND}:${id}`],
      );
      return rows[0] && rows[0].attempts >= 1 && rows[0].locked_at === null && rows[0].last_error ? rows[0] : undefined;
    });
    expect(dead.last_error).toContain("are invalid");
    // The gap: the ledger row is still pending, and nothing would ever change that.
    expect(await notification(id)).toMatchObject({ status: "pending", attempts: 0 });
    await env.app.pool.query("update preorder_notifications set updated_at = now() - interval '10 minutes' where id = $1", [id]);
    await env.app.pool.query("update preorder_shop_settings set settings = '{}' where shop_id = $1", [env.shopId]);

    await recover(60);
    const row = await notification(id);
    expect(row).toMatchObject({ status: "failed", attempts: 0, sent_at: null });
    expect(row.error).toMatch(/^The send job ran out of attempts \(1\): .*preorder settings of shop .* are invalid/);
    expect(env.sink.to(EMAIL)).toHaveLength(1); // the confirmation only
  });

  it("queues the send again for a row whose job is gone (same message id), and it goes out", async () => {
    const id = await pendingRow();
    await recover(60);
    const sent = await waitFor("the requeued notification sent", async () => {
      const row = await notification(id);
      return row.status === "pending" ? undefined : row;
    });
    expect(sent).toMatchObject({ status: "sent", attempts: 1, message_id: `preorder-${id}` });
    expect(env.sink.to(EMAIL)).toHaveLength(2);
  });

  it("marks failed a row pending for over 24 hours with no job; leaves a live job's row and a recent row alone", async () => {
    const expired = await pendingRow({ createdAgo: "2 days", updatedAgo: "2 days" });
    const live = await pendingRow();
    await addSendJob(live, { maxAttempts: 5, runAt: new Date(Date.now() + 3_600_000).toISOString() });
    const recent = await pendingRow({ updatedAgo: "10 seconds" });
    await recover(60);
    expect(await notification(expired)).toMatchObject({ status: "failed", error: "Pending for over 24 hours with no send job" });
    expect(await notification(live)).toMatchObject({ status: "pending", error: null });
    expect(await notification(recent)).toMatchObject({ status: "pending", error: null });
    const { rows } = await env.app.pool.query("select 1 from graphile_worker.jobs where key = $1", [`${SEND}:${recent}`]);
    expect(rows).toHaveLength(0);
    expect(env.sink.to(EMAIL)).toHaveLength(2);
  });
});
