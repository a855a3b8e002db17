import { describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { emulatorOrder, emulatorPlan, insertOfferOnPlan } from "./helpers/preorder-shop.ts";
import { runNow } from "./helpers/queue.ts";
import { webhooksProcessed } from "./helpers/webhook-delivery.ts";
import { waitFor } from "./helpers/wait.ts";

// /account/integrations flow_triggers: the chosen events reach the platform's automation through
// flowTriggerReceive (the emulator records what it received); nothing while off or not chosen.
const env = useTestEnv({
  smtp: true,
  emulator: { seed: { products: 6, variantsPerProduct: 1, customers: 2 }, webhooks: true },
  connect: "synced",
  worker: { pollInterval: 50 },
});

const patch = (body: unknown) => invoke(env.app, "PATCH", "/account/integrations", { key: env.key, body });

async function flowJobs(): Promise<{ key: string; last_error: string | null }[]> {
  const { rows } = await env.app.pool.query<{ key: string; last_error: string | null }>(
    "select key, last_error from graphile_worker.jobs where task_identifier = 'flow_trigger_send' order by id",
  );
  return rows;
}

/** Waits until no flow trigger job is queued or running. */
async function flowSettled(): Promise<void> {
  await waitFor("flow trigger jobs done", async () => ((await flowJobs()).length === 0 ? true : undefined));
}

async function signup(variantIndex: number, email: string): Promise<string> {
  const variant = env.emulator.store.variants[variantIndex];
  if (!variant) throw new Error("no variant");
  const answer = await invoke(env.app, "POST", "/back_in_stock/signups", { key: env.key, body: { variant_id: variant.id, channel: "email", email } });
  expect(answer.status).toBe(202);
  return (answer.body as { id: string }).id;
}

/** Sold out at every active location as the platform announces it: the mirror must see zero for the next stock to be a restock. */
async function soldOut(variantId: number): Promise<void> {
  for (const location of env.emulator.store.activeLocations()) {
    const zero = await fetch(`${env.emulator.origin}/admin/inventory`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ variant_id: variantId, location_id: location.id, available: 0 }),
    });
    expect(zero.status).toBe(200);
  }
  await env.emulator.webhooksSettled();
  await webhooksProcessed(env.app.pool);
}

const received = (handle: string) => env.emulator.app.flowTriggers.filter((t) => t.handle === handle);

describe("flow triggers", () => {
  it("sends nothing while the switch is off (the default), nor an event not chosen", async () => {
    await signup(0, "off@example.com");
    expect(await flowJobs()).toEqual([]);

    expect((await patch({ flow_triggers: { enabled: true, triggers: ["preorder_order_placed"] } })).status).toBe(202);
    await signup(0, "unchosen@example.com");
    expect(await flowJobs()).toEqual([]);
    expect(env.emulator.app.flowTriggers).toEqual([]);
  });

  it("a new signup, an alert sent and a new preorder order each send their trigger with ids only", async () => {
    expect(
      (await patch({ flow_triggers: { enabled: true, triggers: ["back_in_stock_signup_created", "back_in_stock_alert_sent", "preorder_order_placed"] } })).status,
    ).toBe(202);
    const variant = env.emulator.store.variants[1];
    if (!variant) throw new Error("no variant");
    await soldOut(variant.id);

    const signupId = await signup(1, "flow@example.com");
    await flowSettled();
    expect(received("back-in-stock-signup-created").map((t) => t.payload)).toEqual([
      { customer_id: null, product_id: variant.productId, "Signup ID": signupId, "Variant ID": variant.id, Channel: "email" },
    ]);
    // A repeated signup is the same signup: no second trigger.
    await signup(1, "flow@example.com");
    await flowSettled();
    expect(received("back-in-stock-signup-created")).toHaveLength(1);

    // The restock alerts the signup: its alert_sent trigger follows the send.
    const restock = await fetch(`${env.emulator.origin}/admin/inventory`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ variant_id: variant.id, available: 3 }) });
    expect(restock.status).toBe(200);
    await waitFor("the alert trigger", async () => (received("back-in-stock-alert-sent").length === 1 ? true : undefined));
    expect(received("back-in-stock-alert-sent")[0]?.payload).toMatchObject({ "Signup ID": signupId, "Variant ID": variant.id, Channel: "email" });

    // The signup's customer buys the variant: the conversion is not chosen, so nothing is sent for it.
    const bought = await fetch(`${env.emulator.origin}/admin/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ line_items: [{ variant_id: variant.id, quantity: 1 }], email: "flow@example.com" }),
    });
    expect(bought.status).toBe(201);
    await env.emulator.webhooksSettled();
    await waitFor("the signup converted", async () => {
      const { rows } = await env.app.pool.query<{ status: string }>("select status from bis_signups where id = $1", [signupId]);
      return rows[0]?.status === "converted" ? true : undefined;
    });
    expect(await flowJobs()).toEqual([]);
    expect(received("back-in-stock-signup-converted")).toEqual([]);

    const { planGid, variantId } = await emulatorPlan(env, 2);
    const offerId = await insertOfferOnPlan(env.app.pool, env.shopId, planGid, {});
    const { platform } = await emulatorOrder(env, { line_items: [{ variant_id: variantId, quantity: 1, selling_plan_id: planGid }], email: "buyer@example.com" });
    await waitFor("the order trigger", async () => (received("preorder-order-placed").length === 1 ? true : undefined));
    expect(received("preorder-order-placed")[0]?.payload).toMatchObject({ order_id: platform.id, "Offer IDs": offerId });
    // No contact in a trigger's payload.
    expect(JSON.stringify(env.emulator.app.flowTriggers)).not.toContain("@example.com");
  });

  it("a signup converted by an order sends back_in_stock_signup_converted with the order's id", async () => {
    expect((await patch({ flow_triggers: { enabled: true, triggers: ["back_in_stock_alert_sent", "back_in_stock_signup_converted"] } })).status).toBe(202);
    const variant = env.emulator.store.variants[5];
    if (!variant) throw new Error("no variant");
    await soldOut(variant.id);
    const signupId = await signup(5, "convert@example.com");
    const restock = await fetch(`${env.emulator.origin}/admin/inventory`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ variant_id: variant.id, available: 2 }) });
    expect(restock.status).toBe(200);
    await waitFor("the alert trigger", async () => (received("back-in-stock-alert-sent").some((t) => (t.payload as { "Signup ID": string })["Signup ID"] === signupId) ? true : undefined));
    const bought = await fetch(`${env.emulator.origin}/admin/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ line_items: [{ variant_id: variant.id, quantity: 1 }], email: "convert@example.com" }),
    });
    expect(bought.status).toBe(201);
    const { order } = (await bought.json()) as { order: { id: number } };
    await waitFor("the conversion trigger", async () => (received("back-in-stock-signup-converted").length === 1 ? true : undefined));
    expect(received("back-in-stock-signup-converted")[0]?.payload).toMatchObject({ order_id: order.id, "Signup ID": signupId });
  });

  it("a preorder order still owing its balance sends preorder_balance_due when its reminder time comes", async () => {
    expect((await patch({ flow_triggers: { enabled: true, triggers: ["preorder_balance_due"] } })).status).toBe(202);
    const { planGid, variantId } = await emulatorPlan(env, 3);
    await insertOfferOnPlan(env.app.pool, env.shopId, planGid, { payments: { remaining_balance: { due: { type: "days_after_checkout", days: 5, date: null } } } });
    const { orderId, platform } = await emulatorOrder(env, {
      line_items: [{ variant_id: variantId, quantity: 1, price: "80.00" }],
      selling_plan_id: planGid,
      email: "owing@example.com",
      financial_status: "partially_paid",
    });
    expect(await flowJobs()).toEqual([]);
    // The reminder's time, now.
    expect(await runNow(env.app.pool, `preorders_balance_due:${orderId}`)).toBe(1);
    await waitFor("the balance trigger", async () => (received("preorder-balance-due").length === 1 ? true : undefined));
    expect(received("preorder-balance-due")[0]?.payload).toMatchObject({ order_id: platform.id, "Amount due": expect.any(String) as string });
  });

  it("a queued trigger is skipped when the switch is turned off before it runs", async () => {
    expect((await patch({ flow_triggers: { enabled: true, triggers: ["back_in_stock_signup_created"] } })).status).toBe(202);
    await env.stopWorker();
    const before = env.emulator.app.flowTriggers.length;
    try {
      await signup(3, "late@example.com");
      expect(await flowJobs()).toHaveLength(1);
      expect((await patch({ flow_triggers: { enabled: false } })).status).toBe(202);
    } finally {
      await env.startWorker();
    }
    await flowSettled();
    expect(env.emulator.app.flowTriggers).toHaveLength(before);
  });

  it("a passing platform failure is retried by the queue's backoff", async () => {
    expect((await patch({ flow_triggers: { enabled: true, triggers: ["back_in_stock_signup_created"] } })).status).toBe(202);
    await env.stopWorker();
    try {
      await signup(4, "retry@example.com");
      env.emulator.setFaults({ errorRate: 1 });
    } finally {
      await env.startWorker();
    }
    await waitFor("a failed attempt", async () => ((await flowJobs())[0]?.last_error ? true : undefined));
    env.emulator.setFaults({});
    const [job] = await flowJobs();
    if (job) await runNow(env.app.pool, job.key);
    await flowSettled();
    expect(received("back-in-stock-signup-created").some((t) => (t.payload as { "Variant ID": number })["Variant ID"] === env.emulator.store.variants[4]?.id)).toBe(true);
  });
});
