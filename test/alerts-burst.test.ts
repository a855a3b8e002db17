import { describe, expect, it } from "vitest";
import { detectRestock, runAlertBatch, runRestockBurst } from "../src/back_in_stock/alerts/runs.ts";
import { upsertInventoryLevels } from "../src/catalog/mirror.ts";
import { createChannels } from "../src/channels/index.ts";
import { withTransaction } from "../src/core/db.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";

// A restock of many variants at once: the first message of every variant goes out in one burst,
// before any variant's whole batch; each batch then sends the rest within its quota (sized by the
// stock the webhook wrote, with no live read of the platform).

const env = useTestEnv({ shop: false, smtp: true });

const VARIANTS = [41, 42, 43];

async function restock(shopId: string, n: number, available: number): Promise<void> {
  await withTransaction(env.pool, (db) =>
    detectRestock(db, shopId, `gid://shopify/InventoryItem/${n}`, () =>
      upsertInventoryLevels(db, shopId, new Date(), [
        { inventoryItemId: `gid://shopify/InventoryItem/${n}`, locationId: "gid://shopify/Location/1", available, updatedAt: new Date().toISOString() },
      ]),
    ),
  );
}

describe("the restock burst", () => {
  it("sends the oldest signup of every restocked variant at once; the batches send the rest within the webhook's stock", async () => {
    const { shopId } = await createShopWithKey(env.pool, "Burst Shop");
    await env.pool.query("insert into bis_settings (shop_id, settings) values ($1, $2)", [
      shopId,
      JSON.stringify({ delivery: { batch_multiplier: 1, batch_interval_seconds: 3600 } }),
    ]);
    await seedVariants(
      env.pool,
      shopId,
      VARIANTS.map((n) => ({ n, product: n, available: 0 })),
    );
    await env.pool.query(
      `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
       select $1, 'gid://shopify/ProductVariant/' || v, 'email', 'burst-' || v || '-' || k || '@example.com', true, now() - interval '1 day' + make_interval(secs => k)
       from unnest($2::int[]) v, generate_series(1, 4) k`,
      [shopId, VARIANTS],
    );
    for (const n of VARIANTS) await restock(shopId, n, 3);

    const { rows: runs } = await env.pool.query<{ batch_quota: number; batches: number; last_available: number }>(
      "select batch_quota, batches, last_available from bis_alert_runs where shop_id = $1 and status = 'running'",
      [shopId],
    );
    expect(runs).toEqual(VARIANTS.map(() => ({ batch_quota: 3, batches: 1, last_available: 3 })));
    const { rows: burstJobs } = await env.pool.query<{ priority: number }>(
      "select priority from graphile_worker.jobs where task_identifier = 'bis_restock_burst'",
    );
    expect(burstJobs.length).toBeGreaterThanOrEqual(1);
    expect(burstJobs.every((j) => j.priority === -10)).toBe(true);

    const channels = createChannels({ ...env.config, SMTP_URL: env.sink.url }, env.log);
    const deps = { pool: env.pool, log: env.log, config: env.config, platform: testPlatformRuntime(), channels };
    try {
      const burst = await runRestockBurst(deps, shopId);
      expect(burst).toMatchObject({ variants: 3, sent: { sent: 3 } });
      expect(env.sink.messages.map((m) => m.to).sort()).toEqual(VARIANTS.map((v) => `burst-${v}-1@example.com`));
      // A second burst finds nothing new.
      expect((await runRestockBurst(deps, shopId)).variants).toBe(0);

      for (const n of VARIANTS) {
        const batch = await runAlertBatch(deps, { shop_id: shopId, variant_id: variantGid(n), trigger: "inventory_webhook" });
        expect(batch).toMatchObject({ available: 3, quota: 3, claimed: 2 });
      }
    } finally {
      await channels.close();
    }
    // 3 units x multiplier 1 per variant: 3 of the 4 signups each, the oldest first; the 4th waits for the next batch.
    expect(env.sink.messages).toHaveLength(9);
    for (const v of VARIANTS) {
      expect(env.sink.messages.filter((m) => m.to.startsWith(`burst-${v}-`)).map((m) => m.to).sort()).toEqual([1, 2, 3].map((k) => `burst-${v}-${k}@example.com`));
    }
    expect(new Set(env.sink.messages.map((m) => m.messageId)).size).toBe(9);
  });
});
