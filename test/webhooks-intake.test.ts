import { describe, expect, it } from "vitest";
import { createShopWithKey } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { deliverWebhook } from "./helpers/webhook-delivery.ts";

// An inventory webhook is applied in the intake's own transaction: the restock's alert run is
// open and its burst queued by the time the platform has its 200, with no worker in between.
// Other topics, and an inventory payload the intake cannot take, keep the durable job.

const env = useTestEnv({ shop: false });

async function shop(name: string): Promise<{ shopId: string; domain: string }> {
  const { shopId } = await createShopWithKey(env.app.pool, name);
  const domain = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.platform.local`;
  await env.app.pool.query("update shops set platform_domain = $2 where id = $1", [shopId, domain]);
  return { shopId, domain };
}

async function jobsOf(task: string): Promise<number> {
  const { rows } = await env.app.pool.query<{ n: number }>("select count(*)::int as n from graphile_worker.jobs where task_identifier = $1", [task]);
  return rows[0]?.n ?? 0;
}

describe("inventory webhooks at intake", () => {
  it("are applied before the answer: the level written, the run opened, the burst queued, no webhook job", async () => {
    const { shopId, domain } = await shop("Intake Shop");
    await seedVariants(env.app.pool, shopId, [{ n: 61, product: 61, available: 0 }]);
    await env.app.pool.query("insert into bis_signups (shop_id, variant_id, channel, contact, consent) values ($1, $2, 'email', 'intake@example.com', true)", [
      shopId,
      variantGid(61),
    ]);
    const before = await jobsOf("platform_webhook");
    await deliverWebhook(env.app.origin, "inventory_levels/update", { inventory_item_id: 61, location_id: 1, available: 4, updated_at: new Date().toISOString() }, domain);
    // No worker runs in this file: whatever is done was done by the intake.
    const { rows: delivery } = await env.app.pool.query<{ processed: boolean }>(
      "select processed_at is not null as processed from webhook_deliveries where shop_id = $1",
      [shopId],
    );
    expect(delivery).toEqual([{ processed: true }]);
    const { rows: levels } = await env.app.pool.query<{ available: number }>("select available from inventory_levels where shop_id = $1", [shopId]);
    expect(levels).toEqual([{ available: 4 }]);
    const { rows: runs } = await env.app.pool.query<{ batch_quota: number }>("select batch_quota from bis_alert_runs where shop_id = $1 and status = 'running'", [shopId]);
    expect(runs).toHaveLength(1);
    expect(await jobsOf("bis_restock_burst")).toBeGreaterThanOrEqual(1);
    expect(await jobsOf("platform_webhook")).toBe(before);
  });

  it("leave a payload the intake cannot take, and every other topic, to the webhook job", async () => {
    const { shopId, domain } = await shop("Intake Fallback Shop");
    const before = await jobsOf("platform_webhook");
    await deliverWebhook(env.app.origin, "inventory_levels/update", { inventory_item_id: 62, location_id: 1, available: "many", updated_at: "x" }, domain);
    await deliverWebhook(env.app.origin, "orders/create", { id: 9001, updated_at: new Date().toISOString(), line_items: [] }, domain);
    const { rows } = await env.app.pool.query<{ topic: string; processed: boolean }>(
      "select topic, processed_at is not null as processed from webhook_deliveries where shop_id = $1 order by id",
      [shopId],
    );
    expect(rows).toEqual([
      { topic: "inventory_levels/update", processed: false },
      { topic: "orders/create", processed: false },
    ]);
    expect(await jobsOf("platform_webhook")).toBe(before + 2);
  });
});
