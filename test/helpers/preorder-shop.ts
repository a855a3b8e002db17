import { expect } from "vitest";
import type pg from "pg";
import { invoke } from "./app.ts";
import type { TestEnv } from "./fixture.ts";
import { deliverWebhook, webhooksProcessed } from "./webhook-delivery.ts";
import { waitFor } from "./wait.ts";
import { runNow } from "./queue.ts";

/**
 * Helpers of the shop-wide preorder tests (settings, notifications, order tags, auto-collect):
 * offers written straight into the table with the settings a test needs, and orders placed
 * through signed platform webhooks processed by the worker.
 */

let nextOrder = 50_000 + Math.floor(Math.random() * 1000) * 100;
let nextPlan = 900 + Math.floor(Math.random() * 1000) * 10;

/** Gives the shop a platform domain, so webhooks find it. */
export async function useDomain(pool: pg.Pool, shopId: string, domain: string): Promise<void> {
  await pool.query("update shops set platform_domain = $2 where id = $1", [shopId, domain]);
}

/** An offer on its own selling plan (as its sync records it), with the given capability groups; answers its id and plan. */
export async function insertOffer(pool: pg.Pool, shopId: string, settings: Record<string, unknown> = {}, name = "Spring drop"): Promise<{ id: string; plan: number }> {
  const plan = nextPlan++;
  const { rows } = await pool.query<{ id: string }>(
    `insert into preorder_offers (shop_id, name, internal_name, status, settings, platform_selling_plan_id)
     values ($1, $2, $2, 'active', $3, $4) returning id`,
    [shopId, name, JSON.stringify(settings), `gid://shopify/SellingPlan/${plan}`],
  );
  return { id: rows[0]?.id ?? "", plan };
}

interface OrderSpec {
  id?: number;
  plan: number;
  email?: string | null;
  phone?: string | null;
  locale?: string;
  created_at?: string;
  updated_at?: string;
  cancelled_at?: string | null;
  financial_status?: string;
  fulfillment_status?: string | null;
  total_outstanding?: string;
  tags?: string;
}

export function orderPayload(spec: OrderSpec): Record<string, unknown> & { id: number; admin_graphql_api_id: string } {
  const id = spec.id ?? nextOrder++;
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#${id}`,
    email: spec.email === undefined ? `buyer-${id}@example.com` : spec.email,
    phone: spec.phone ?? null,
    customer_locale: spec.locale ?? "en",
    created_at: spec.created_at ?? new Date().toISOString(),
    updated_at: spec.updated_at ?? spec.created_at ?? new Date().toISOString(),
    cancelled_at: spec.cancelled_at ?? null,
    financial_status: spec.financial_status ?? "paid",
    fulfillment_status: spec.fulfillment_status ?? null,
    currency: "USD",
    total_price: "100.00",
    total_outstanding: spec.total_outstanding ?? "0.00",
    tags: spec.tags ?? "",
    customer: null,
    line_items: [{ id: id * 10, variant_id: 101, product_id: 900, quantity: 1, price: "100.00", selling_plan_allocation: { selling_plan_id: spec.plan } }],
  };
}

/** Delivers the order webhook, waits until the worker processed it, and answers the preorder order's id. */
export async function placeOrder(env: TestEnv, domain: string, topic: string, payload: { admin_graphql_api_id: string } & Record<string, unknown>): Promise<string> {
  await deliverWebhook(env.app.origin, topic, payload, domain);
  await webhooksProcessed(env.app.pool);
  const { rows } = await env.app.pool.query<{ id: string }>("select id from preorder_orders where platform_order_id = $1", [payload.admin_graphql_api_id]);
  const id = rows[0]?.id;
  if (!id) throw new Error("the order is not a preorder order");
  return id;
}

export interface NotificationBody {
  id: string;
  message_id: string;
  order_id: string;
  offer_id: string | null;
  stage: string;
  channel: string;
  recipient: string | null;
  locale: string;
  status: string;
  blocked_reason: string | null;
  error: string | null;
  attempts: number;
  sent_at: string | null;
}

/** The order's notifications of a stage once none is pending any more. */
export async function settledNotifications(env: TestEnv, orderId: string, stage: string, count = 1): Promise<NotificationBody[]> {
  return waitFor(`${count} ${stage} notification(s) of order ${orderId} decided`, async () => {
    const answer = await invoke(env.app, "GET", `/preorders/notifications?order_id=${orderId}&stage=${stage}`, { key: env.key });
    expect(answer.status).toBe(200);
    const list = (answer.body as { notifications: NotificationBody[] }).notifications;
    return list.length >= count && list.every((n) => n.status !== "pending") ? list : undefined;
  });
}

/** A raw message's quoted-printable text, decoded (soft line breaks joined, =XX bytes read as UTF-8). */
export function decoded(raw: string | undefined): string {
  const joined = (raw ?? "").replace(/=\r?\n/g, "");
  return Buffer.from(joined.replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), "latin1").toString("utf8");
}

/** A selling plan group on the emulator for its `index`-th seeded variant; answers the plan's gid and the variant's id. */
export async function emulatorPlan(env: TestEnv, index: number): Promise<{ planGid: string; variantId: number }> {
  const { createSellingPlanGroup } = await import("../../src/platform/operations/selling-plans.ts");
  const client = await env.platform.clientFor(env.app.pool, env.shopId);
  const variant = env.emulator.store.variants[index];
  if (!variant) throw new Error("no seeded variant");
  const group = await createSellingPlanGroup(
    client,
    {
      name: `Preorder ${index}`,
      merchantCode: `preorder-shop-test-${index}`,
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
    [`gid://shopify/ProductVariant/${variant.id}`],
  );
  const planGid = group.sellingPlans.nodes[0]?.id;
  if (!planGid) throw new Error("no plan");
  return { planGid, variantId: variant.id };
}

/** An offer row on an emulator selling plan (as its sync records it). */
export async function insertOfferOnPlan(pool: pg.Pool, shopId: string, planGid: string, settings: Record<string, unknown>): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    `insert into preorder_offers (shop_id, name, internal_name, status, settings, platform_selling_plan_id) values ($1, 'Emulated', 'Emulated', 'active', $2, $3) returning id`,
    [shopId, JSON.stringify(settings), planGid],
  );
  return rows[0]?.id ?? "";
}

/** Places an order on the emulator (its webhooks reach the app); waits until processed; answers both ids. */
export async function emulatorOrder(env: TestEnv, body: Record<string, unknown>): Promise<{ orderId: string; platform: { id: number; admin_graphql_api_id: string } }> {
  const created = await fetch(`${env.emulator.origin}/admin/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(created.status).toBe(201);
  const { order } = (await created.json()) as { order: { id: number; admin_graphql_api_id: string } };
  await env.emulator.webhooksSettled();
  await webhooksProcessed(env.app.pool);
  const { rows } = await env.app.pool.query<{ id: string }>("select id from preorder_orders where platform_order_id = $1", [order.admin_graphql_api_id]);
  const orderId = rows[0]?.id;
  if (!orderId) throw new Error("the emulator's order did not arrive");
  return { orderId, platform: order };
}

/** Sends an emulator order event (cancel, fulfill, pay) and waits until the app processed its webhook. */
export async function emulatorOrderEvent(env: TestEnv, platformId: number, event: "cancel" | "fulfill" | "pay"): Promise<void> {
  const answer = await fetch(`${env.emulator.origin}/admin/orders/${platformId}/${event}`, { method: "POST" });
  expect(answer.status).toBe(200);
  await env.emulator.webhooksSettled();
  await webhooksProcessed(env.app.pool);
}

/** graphile-worker's job under `key`, if any (queued or retrying). */
export async function workerJob(pool: pg.Pool, key: string): Promise<{ run_at: Date; attempts: number; last_error: string | null } | undefined> {
  const { rows } = await pool.query<{ run_at: Date; attempts: number; last_error: string | null }>("select run_at, attempts, last_error from graphile_worker.jobs where key = $1", [key]);
  return rows[0];
}

/** Brings a waiting job forward to now. */
export { runNow };

/** The webhook topics recorded for a preorder order, oldest first. */
export async function orderTopics(pool: pg.Pool, orderId: string): Promise<string[]> {
  const { rows } = await pool.query<{ topic: string }>("select topic from preorder_webhook_events where order_id = $1 order by created_at, topic", [orderId]);
  return rows.map((r) => r.topic);
}
