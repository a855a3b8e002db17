import { beforeAll, describe, expect, it } from "vitest";
import { offerSyncKey } from "../src/preorders/sync/enqueue.ts";
import type { PlatformClient } from "../src/platform/client.ts";
import { getSellingPlanGroup } from "../src/platform/operations/selling-plans.ts";
import { applyPreorderOrder } from "../src/preorders/orders/ingest.ts";
import { type Json, newOffer, offerCall } from "./helpers/offers.ts";
import { groupVariants, mirrorVariants, offerSyncRow, useSyncEnv, waitSynced } from "./helpers/offer-sync.ts";
import { waitFor } from "./helpers/wait.ts";
import { runNow } from "./helpers/queue.ts";

const env = useSyncEnv({ products: 12, variantsPerProduct: 3, locations: 2, markets: 2, collections: 2 });
let client: PlatformClient;
/** Numeric ids of mirrored variants (from the emulator's seeded catalog). */
let legacy: number[];

beforeAll(async () => {
  client = await env.platform.clientFor(env.app.pool, env.shopId);
  legacy = (await mirrorVariants(env)).map((v) => v.legacy_id);
});

const gid = (n: number) => `gid://shopify/ProductVariant/${n}`;
const call = (method: string, id: string, suffix = "", body?: unknown) => offerCall(env.app, env.key, method, id, suffix, body);

const PLAN_POLICIES = `query Plans($id: ID!) { sellingPlanGroup(id: $id) { sellingPlans(first: 5) { nodes {
  name options category
  billingPolicy { ... on SellingPlanFixedBillingPolicy {
    checkoutCharge { type value { ... on SellingPlanCheckoutChargePercentageValue { percentage } ... on MoneyV2 { amount } } }
    remainingBalanceChargeTrigger remainingBalanceChargeExactTime remainingBalanceChargeTimeAfterCheckout
  } }
  deliveryPolicy { ... on SellingPlanFixedDeliveryPolicy { fulfillmentTrigger fulfillmentExactTime } }
  inventoryPolicy { reserve }
  pricingPolicies { ... on SellingPlanFixedPricingPolicy { adjustmentType adjustmentValue { ... on SellingPlanPricingPolicyPercentageValue { percentage } ... on MoneyV2 { amount } } } }
} } } }`;

async function plans(groupId: string): Promise<Json[]> {
  const data = await client.request<{ sellingPlanGroup: { sellingPlans: { nodes: Json[] } } }>(PLAN_POLICIES, { id: groupId });
  return data.sellingPlanGroup.sellingPlans.nodes;
}

/** Sync jobs of the offer still waiting in graphile-worker (not running). */
async function pendingSyncJobs(offerId: string): Promise<number> {
  const { rows } = await env.app.pool.query<{ n: number }>("select count(*)::int as n from graphile_worker.jobs where key = $1 and locked_at is null", [offerSyncKey(offerId)]);
  return rows[0]?.n ?? 0;
}

describe("offer sync to the platform", () => {
  it("a PATCH burst coalesces into one pending sync job, which syncs the latest revision", async () => {
    await env.stopWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(0, 2) } }, { enable: true });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => call("PATCH", id, "", { name: `Drop ${i}` })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(202));
    await call("PATCH", id, "", { name: "Final name" });
    expect(await pendingSyncJobs(id)).toBe(1);
    expect((await offerSyncRow(env, id)).revision).toBeGreaterThanOrEqual(11);

    await env.startWorker();
    const synced = await waitSynced(env, id);
    expect(synced.platform_selling_plan_group_id).toMatch(/^gid:\/\/shopify\/SellingPlanGroup\/\d+$/);
    expect((await getSellingPlanGroup(client, synced.platform_selling_plan_group_id ?? ""))?.name).toBe("Final name");
    expect(await pendingSyncJobs(id)).toBe(0);
  });

  it("creates the group with the offer's variants and policies, visible in the offer's GET", async () => {
    await env.startWorker();
    const id = await newOffer(env, {
      internal_name: "SPRING-CODE",
      products: { variant_ids: legacy.slice(0, 3) },
      shipping: { delivery: { type: "on_date", date: "2026-12-01T00:00:00Z" } },
      payments: { discount: { type: "percentage", value: 10 }, remaining_balance: { due: { type: "days_after_checkout", days: 21 } } },
      inventory: { reservation: { timing: "on_fulfillment" } },
    }, { enable: true });
    expect((await call("POST", id, "/payments/enable_option", { type: "deposit", deposit_percent: 25 })).status).toBe(202);
    expect((await call("POST", id, "/payments/disable_option", { type: "full" })).status).toBe(202);
    const synced = await waitSynced(env, id);
    const groupId = synced.platform_selling_plan_group_id ?? "";

    const offer = (await call("GET", id)).body as Json;
    expect(offer.sync).toEqual({ status: "synced", last_error: null, last_event: null, platform_selling_plan_group_id: groupId });

    const group = await getSellingPlanGroup(client, groupId);
    expect(group).toMatchObject({ name: "Spring drop", merchantCode: "SPRING-CODE", options: ["Payment"], productVariantsCount: 3 });
    expect(group?.sellingPlans.nodes).toHaveLength(1);
    expect(group?.sellingPlans.nodes[0]?.id).toBe(synced.platform_selling_plan_id);
    expect(await groupVariants(env, groupId)).toEqual(legacy.slice(0, 3).map(gid).sort());
    expect(await plans(groupId)).toEqual([
      {
        name: "Pay a deposit",
        options: ["Pay a deposit"],
        category: "PRE_ORDER",
        billingPolicy: {
          checkoutCharge: { type: "PERCENTAGE", value: { percentage: 25 } },
          remainingBalanceChargeTrigger: "TIME_AFTER_CHECKOUT",
          remainingBalanceChargeExactTime: null,
          remainingBalanceChargeTimeAfterCheckout: "P21D",
        },
        deliveryPolicy: { fulfillmentTrigger: "EXACT_TIME", fulfillmentExactTime: "2026-12-01T00:00:00.000Z" },
        inventoryPolicy: { reserve: "ON_FULFILLMENT" },
        pricingPolicies: [{ adjustmentType: "PERCENTAGE", adjustmentValue: { percentage: 10 } }],
      },
    ]);
  });

  it("links to the offer the order lines placed on its plan before the sync recorded the plan", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(3, 4) } }, { enable: true });
    const planId = (await waitSynced(env, id)).platform_selling_plan_id ?? "";
    expect(planId).toMatch(/^gid:\/\/shopify\/SellingPlan\//);
    // An order placed under the new plan between the platform creating it and the sync recording
    // it: its line could not be linked when its webhook came.
    const { rows } = await env.app.pool.query<{ id: string }>(
      `insert into preorder_orders (shop_id, platform_order_id, currency, total_price, total_outstanding, platform_created_at, platform_updated_at)
       values ($1, 'gid://shopify/Order/990001', 'USD', 10, 0, now(), now()) returning id`,
      [env.shopId],
    );
    await env.app.pool.query(
      `insert into preorder_order_lines (order_id, shop_id, platform_line_id, variant_id, quantity, price, selling_plan_id, offer_id)
       values ($1, $2, 'gid://shopify/LineItem/990001', $3, 1, 10, $4, null)`,
      [rows[0]?.id, env.shopId, gid(legacy[3] ?? 0), planId],
    );
    expect((await call("PATCH", id, "", { name: "Spring drop, relinked" })).status).toBe(202);
    await waitSynced(env, id);
    const line = await env.app.pool.query<{ offer_id: string | null }>("select offer_id from preorder_order_lines where order_id = $1", [rows[0]?.id]);
    expect(line.rows).toEqual([{ offer_id: id }]);
  });

  it("an update changes the plan in place and reconciles the group's variants", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(0, 3) } }, { enable: true });
    const first = await waitSynced(env, id);
    const groupId = first.platform_selling_plan_group_id ?? "";
    expect(await groupVariants(env, groupId)).toEqual(legacy.slice(0, 3).map(gid).sort());

    await call("POST", id, "/products/remove_variants", { variant_ids: [legacy[0]] });
    await call("POST", id, "/products/add_variants", { variant_ids: legacy.slice(3, 6) });
    await call("POST", id, "/payments/enable_option", { type: "deposit", deposit_percent: 40 });
    await call("PATCH", id, "/shipping", { delivery: { type: "asap", days: 10 } });
    const second = await waitSynced(env, id);
    expect(second.platform_selling_plan_group_id).toBe(groupId);
    expect(await groupVariants(env, groupId)).toEqual(legacy.slice(1, 6).map(gid).sort());
    // The full payment's plan is updated in place (its id, which orders are matched by, stays); the deposit gets a plan of its own (decision 0212).
    expect(second.platform_selling_plan_id).toBe(first.platform_selling_plan_id);
    const now = await plans(groupId);
    expect(now.map((p) => [p.name, (p.billingPolicy as Json).remainingBalanceChargeTrigger, (p.deliveryPolicy as Json).fulfillmentTrigger])).toEqual([
      ["Pay in full", "NO_REMAINING_BALANCE", "ASAP"],
      ["Pay a deposit", "TIME_AFTER_CHECKOUT", "ASAP"],
    ]);

    // A group deleted on the platform behind the service's back is created again.
    await client.request(`mutation D($id: ID!) { sellingPlanGroupDelete(id: $id) { deletedSellingPlanGroupId userErrors { message } } }`, { id: groupId });
    await call("PATCH", id, "", { name: "Recreated" });
    const third = await waitSynced(env, id);
    expect(third.platform_selling_plan_group_id).not.toBe(groupId);
    expect(await groupVariants(env, third.platform_selling_plan_group_id ?? "")).toEqual(legacy.slice(1, 6).map(gid).sort());
  });

  it("a choice offer puts a plan per enabled option with the options' copy; an update keeps the plan ids; a disabled option's plan goes", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(6, 8) } }, { enable: true });
    const fullPlan = (await waitSynced(env, id)).platform_selling_plan_id;
    expect((await call("POST", id, "/payments/enable_option", { type: "deposit", deposit_percent: 30 })).status).toBe(202);
    expect((await call("POST", id, "/payments/set_option_copy", { type: "full", title: "Everything today", description: "The whole price at checkout." })).status).toBe(202);
    expect((await call("POST", id, "/payments/set_option_copy", { type: "deposit", title: "Reserve for 30%", description: "The rest in 30 days." })).status).toBe(202);
    const synced = await waitSynced(env, id);
    const groupId = synced.platform_selling_plan_group_id ?? "";
    const PLANS = `query P($id: ID!) { sellingPlanGroup(id: $id) { options sellingPlans(first: 5) { nodes {
      id name description options
      billingPolicy { ... on SellingPlanFixedBillingPolicy { checkoutCharge { value { ... on SellingPlanCheckoutChargePercentageValue { percentage } } } remainingBalanceChargeTrigger } } } } } }`;
    type Plans = { sellingPlanGroup: { options: string[]; sellingPlans: { nodes: { id: string; name: string; description: string; options: string[]; billingPolicy: Json }[] } } };
    const read = async () => (await client.request<Plans>(PLANS, { id: groupId })).sellingPlanGroup;
    const offerPlans = async () =>
      (
        await env.app.pool.query<{ platform_selling_plan_id: string; payment_option: string; position: number | null; removed: boolean }>(
          "select platform_selling_plan_id, payment_option, position, removed_at is not null as removed from preorder_offer_selling_plans where offer_id = $1 order by payment_option",
          [id],
        )
      ).rows;

    const group = await read();
    expect(group.options).toEqual(["Payment"]);
    expect(group.sellingPlans.nodes.map((p) => [p.name, p.description, p.options, p.billingPolicy])).toEqual([
      ["Everything today", "The whole price at checkout.", ["Everything today"], { checkoutCharge: { value: { percentage: 100 } }, remainingBalanceChargeTrigger: "NO_REMAINING_BALANCE" }],
      ["Reserve for 30%", "The rest in 30 days.", ["Reserve for 30%"], { checkoutCharge: { value: { percentage: 30 } }, remainingBalanceChargeTrigger: "TIME_AFTER_CHECKOUT" }],
    ]);
    const [full, deposit] = group.sellingPlans.nodes.map((p) => p.id);
    // The full payment's plan from before stays its plan, and the offer's first (platform_selling_plan_id).
    expect(full).toBe(fullPlan);
    expect(synced.platform_selling_plan_id).toBe(full);
    expect(await offerPlans()).toEqual([
      { platform_selling_plan_id: deposit, payment_option: "deposit", position: 1, removed: false },
      { platform_selling_plan_id: full, payment_option: "full", position: 0, removed: false },
    ]);

    // New copy and a new percentage change the plans in place.
    await call("POST", id, "/payments/set_option_copy", { type: "deposit", title: "Hold it with 40%" });
    await call("POST", id, "/payments/enable_option", { type: "deposit", deposit_percent: 40 });
    await call("PATCH", id, "", { name: "Renamed" });
    await waitSynced(env, id);
    expect((await read()).sellingPlans.nodes.map((p) => [p.id, p.name])).toEqual([
      [full, "Everything today"],
      [deposit, "Hold it with 40%"],
    ]);

    // The full payment disabled: its plan leaves the group; the deposit's keeps its id and is now the first.
    expect((await call("POST", id, "/payments/disable_option", { type: "full" })).status).toBe(202);
    const after = await waitSynced(env, id);
    expect((await read()).sellingPlans.nodes.map((p) => [p.id, p.name])).toEqual([[deposit, "Hold it with 40%"]]);
    expect(after.platform_selling_plan_id).toBe(deposit);
    // The removed plan stays recorded: an order placed on it keeps matching the offer.
    expect(await offerPlans()).toEqual([
      { platform_selling_plan_id: deposit, payment_option: "deposit", position: 0, removed: false },
      { platform_selling_plan_id: full, payment_option: "full", position: null, removed: true },
    ]);
    const at = new Date().toISOString();
    await applyPreorderOrder(env.app.pool, env.shopId, {
      id: 990101,
      admin_graphql_api_id: "gid://shopify/Order/990101",
      name: "#L990101",
      created_at: at,
      updated_at: at,
      currency: "USD",
      total_price: "10.00",
      total_outstanding: "0.00",
      financial_status: "paid",
      line_items: [{ id: 990102, variant_id: legacy[6], quantity: 1, price: "10.00", selling_plan_allocation: { selling_plan_id: Number(full?.split("/").pop()) } }],
    });
    const { rows: lines } = await env.app.pool.query("select offer_id, payment_option from preorder_order_lines where platform_line_id = 'gid://shopify/LineItem/990102'");
    expect(lines).toEqual([{ offer_id: id, payment_option: "full" }]);
  });

  it("use_platform_selling_plan false detaches the offer (its group is deleted); attaching creates it again; deleting the offer deletes it", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(0, 2) } }, { enable: true });
    const groupId = (await waitSynced(env, id)).platform_selling_plan_group_id ?? "";
    expect(await getSellingPlanGroup(client, groupId)).not.toBeNull();

    expect((await call("PATCH", id, "/advanced", { use_platform_selling_plan: false })).status).toBe(202);
    const detached = await waitSynced(env, id);
    expect(detached).toMatchObject({ platform_selling_plan_group_id: null, platform_selling_plan_id: null });
    expect(await getSellingPlanGroup(client, groupId)).toBeNull();
    expect(((await call("GET", id)).body as Json).sync).toEqual({ status: "synced", last_error: null, last_event: null, platform_selling_plan_group_id: null });

    expect((await call("POST", id, "/advanced/attach_to_platform_selling_plan")).status).toBe(202);
    const attached = await waitSynced(env, id);
    expect(attached.platform_selling_plan_group_id).not.toBeNull();
    expect(await groupVariants(env, attached.platform_selling_plan_group_id ?? "")).toEqual(legacy.slice(0, 2).map(gid).sort());

    expect((await call("DELETE", id)).status).toBe(202);
    const deleted = await waitSynced(env, id);
    expect(deleted.platform_selling_plan_group_id).toBeNull();
    expect(await getSellingPlanGroup(client, attached.platform_selling_plan_group_id ?? "")).toBeNull();
  });

  it("a platform failure shows as failed with the error in the offer's GET, and a retry after recovery syncs it", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(0, 2) } }, { enable: true });
    await waitSynced(env, id);
    env.emulator.setFaults({ errorRate: 1 });
    try {
      await call("PATCH", id, "", { name: "Renamed while the platform is down" });
      // The client's own retries run out, the sync records the failure, graphile-worker schedules a retry.
      const job = await waitFor(
        "the failed attempt to be recorded",
        async () => {
          const { rows } = await env.app.pool.query<{ attempts: number; last_error: string | null; locked_at: Date | null }>(
            "select attempts, last_error, locked_at from graphile_worker.jobs where key = $1",
            [offerSyncKey(id)],
          );
          const row = rows[0];
          return row && row.attempts >= 1 && row.last_error !== null && row.locked_at === null ? row : undefined;
        },
        45_000,
      );
      expect(job.attempts).toBe(1);
      const offer = (await call("GET", id)).body as { sync: { status: string; last_error: string; platform_selling_plan_group_id: string | null } };
      expect(offer.sync.status).toBe("failed");
      expect(offer.sync.last_error).toMatch(/failed after \d+ attempts/);
      expect(offer.sync.platform_selling_plan_group_id).not.toBeNull();
    } finally {
      env.emulator.setFaults({});
    }
    // Bring graphile-worker's backoff forward instead of waiting it out.
    await runNow(env.app.pool, offerSyncKey(id));
    const recovered = await waitSynced(env, id);
    expect(recovered.sync_last_error).toBeNull();
    expect((await getSellingPlanGroup(client, recovered.platform_selling_plan_group_id ?? ""))?.name).toBe("Renamed while the platform is down");
  }, 90_000);
});
