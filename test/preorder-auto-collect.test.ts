import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { emulatorOrder, emulatorOrderEvent, emulatorPlan, insertOfferOnPlan, runNow, workerJob } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({
  shop: "Collect Shop",
  emulator: { seed: { products: 3, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1 }, throttle: { maximumAvailable: 100_000, restoreRate: 100_000 }, webhooks: { backoffMs: 50 } },
  connect: true,
  worker: true,
});

const DAY_MS = 86_400_000;
let dueDatePlan: { planGid: string; variantId: number };
let fulfillmentPlan: { planGid: string; variantId: number };
let manualPlan: { planGid: string; variantId: number };

beforeAll(async () => {
  dueDatePlan = await emulatorPlan(env, 0);
  fulfillmentPlan = await emulatorPlan(env, 1);
  manualPlan = await emulatorPlan(env, 2);
  await insertOfferOnPlan(env.app.pool, env.shopId, dueDatePlan.planGid, { payments: { remaining_balance: { auto_collect: true, due: { type: "days_after_checkout", days: 5 } } } });
  await insertOfferOnPlan(env.app.pool, env.shopId, fulfillmentPlan.planGid, { payments: { remaining_balance: { auto_collect_on_fulfillment: true } } });
  await insertOfferOnPlan(env.app.pool, env.shopId, manualPlan.planGid, {});
});

interface OrderFacts {
  balance_due_at: Date | null;
  auto_collect: string | null;
  auto_collect_result: string | null;
  balance_requested_at: Date | null;
  platform_created_at: Date;
}

async function facts(orderId: string): Promise<OrderFacts> {
  const { rows } = await env.app.pool.query<OrderFacts>(
    "select balance_due_at, auto_collect, auto_collect_result, balance_requested_at, platform_created_at from preorder_orders where id = $1",
    [orderId],
  );
  const row = rows[0];
  if (!row) throw new Error("no order");
  return row;
}

const deposit = (plan: { planGid: string; variantId: number }, email: string) =>
  emulatorOrder(env, { line_items: [{ variant_id: plan.variantId, quantity: 1, price: "80.00" }], selling_plan_id: plan.planGid, email, financial_status: "partially_paid" });

/** The auto-collect job run now; answers what it decided. */
async function collectNow(orderId: string): Promise<string> {
  await runNow(env.app.pool, `preorders_auto_collect:${orderId}`);
  return waitFor("the auto-collect run", async () => (await facts(orderId)).auto_collect_result ?? undefined);
}

interface JobBody {
  kind?: string;
  status: string;
  result: { outcome?: string; order_id?: string } | null;
}

describe("auto-collect", () => {
  it("schedules the charge at the due date the offer defines, and then requests it as charge_balance does", { timeout: 30_000 }, async () => {
    const { orderId } = await deposit(dueDatePlan, "due@example.com");
    const before = await facts(orderId);
    expect(before.auto_collect).toBe("due_date");
    expect(before.balance_due_at?.getTime()).toBe(before.platform_created_at.getTime() + 5 * DAY_MS);
    const job = await workerJob(env.app.pool, `preorders_auto_collect:${orderId}`);
    expect(job?.run_at.getTime()).toBe(before.balance_due_at?.getTime());
    // the balance_due reminder is queued days_before (3) the due date
    const reminder = await workerJob(env.app.pool, `preorders_balance_due:${orderId}`);
    expect(reminder?.run_at.getTime()).toBe((before.balance_due_at?.getTime() ?? 0) - 3 * DAY_MS);

    const result = await collectNow(orderId);
    expect(result).toMatch(/^requested: job [0-9a-f-]{36}$/);
    const jobId = result.slice("requested: job ".length);
    const order = await invoke(env.app, "GET", `/preorders/orders/${orderId}`, { key: env.key });
    expect((order.body as { balance_collection_requested_at: string | null }).balance_collection_requested_at).not.toBeNull();
    const charge = await waitFor("the charge job", async () => {
      const answer = await invoke(env.app, "GET", `/jobs/${jobId}`, { key: env.key });
      const body = answer.body as JobBody;
      return body.status === "completed" ? body : undefined;
    });
    expect(charge.result).toMatchObject({ order_id: orderId, outcome: "requested", status: "awaiting_balance" });
  });

  it("does not charge an order cancelled before its due date, nor while the shop's switch is off", { timeout: 30_000 }, async () => {
    const cancelled = await deposit(dueDatePlan, "cancelled@example.com");
    await emulatorOrderEvent(env, cancelled.platform.id, "cancel");
    expect(await collectNow(cancelled.orderId)).toMatch(/^skipped: Preorder order .* is already cancelled$/);
    expect((await facts(cancelled.orderId)).balance_requested_at).toBeNull();

    const off = await invoke(env.app, "PATCH", "/preorders/settings", { key: env.key, body: { orders: { auto_collect_enabled: false } } });
    expect(off.status).toBe(202);
    const paused = await deposit(dueDatePlan, "paused@example.com");
    expect(await collectNow(paused.orderId)).toBe("skipped: auto-collect is off for the shop");
    expect((await facts(paused.orderId)).balance_requested_at).toBeNull();
    await invoke(env.app, "PATCH", "/preorders/settings", { key: env.key, body: { orders: { auto_collect_enabled: true } } });
    const { rows } = await env.app.pool.query("select 1 from jobs where kind = 'preorders_order_charge_balance' and payload->>'order_id' = any($1::text[])", [[cancelled.orderId, paused.orderId]]);
    expect(rows).toHaveLength(0);
  });

  it("with auto_collect_on_fulfillment, charges when the order is fulfilled and not before", { timeout: 30_000 }, async () => {
    const { orderId, platform } = await deposit(fulfillmentPlan, "onship@example.com");
    expect(await facts(orderId)).toMatchObject({ auto_collect: "on_fulfillment", auto_collect_result: null });
    expect(await workerJob(env.app.pool, `preorders_auto_collect:${orderId}`)).toBeUndefined();
    await emulatorOrderEvent(env, platform.id, "fulfill");
    const result = await waitFor("the charge on fulfillment", async () => (await facts(orderId)).auto_collect_result ?? undefined);
    expect(result).toMatch(/^requested: job /);
  });

  it("leaves an offer without auto-collect to the merchant", async () => {
    const { orderId } = await deposit(manualPlan, "manual@example.com");
    expect(await facts(orderId)).toMatchObject({ auto_collect: null, auto_collect_result: null });
    expect(await workerJob(env.app.pool, `preorders_auto_collect:${orderId}`)).toBeUndefined();
    expect(await workerJob(env.app.pool, `preorders_balance_due:${orderId}`)).toBeDefined();
  });
});
