import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { enqueueCatalogSync } from "../src/catalog/schedule.ts";
import { acceptWebhook } from "../src/webhooks/intake.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

// A catalog sync (the crontab's incremental one every 10 minutes, the nightly full one) that
// mirrors a restock before its webhook arrives: the webhook then finds the stock already written
// and sees no rise. Before, no run was opened by either, and the alerts waited for the inventory
// check (every 10 minutes): bench:latency with a full sync beside the webhook side measured 131 s.

const env = useTestEnv({
  app: false,
  shop: true,
  smtp: true,
  emulator: { seed: { products: 2, variantsPerProduct: 1, customers: 1 } },
  connect: "synced",
});

describe("a restock the catalog sync mirrors before its webhook", () => {
  it("opens its run in the sync's write and sends the first alert; the webhook after it opens none again", async () => {
    const store = env.emulator.store;
    const variant = store.variants[0];
    const location = store.activeLocations()[0];
    if (!variant || !location) throw new Error("the emulator has no variant or location");
    const index = store.variantIndex(variant);
    for (const l of store.activeLocations()) store.setAvailable(index, l, 0);
    await enqueueCatalogSync(env.pool, env.shopId, "full");
    await env.startWorker();
    await waitFor("the sold-out level mirrored", async () => {
      const { rows } = await env.pool.query<{ n: number }>("select count(*)::int as n from jobs where shop_id = $1 and kind = 'catalog_sync' and status = 'completed'", [env.shopId]);
      return rows[0]?.n === 1 ? true : undefined;
    });
    const variantId = `gid://shopify/ProductVariant/${variant.id}`;
    await env.pool.query("insert into bis_signups (shop_id, variant_id, channel, contact, consent) values ($1, $2, 'email', 'mirrored-restock@example.com', true)", [
      env.shopId,
      variantId,
    ]);

    // Restocked on the platform; its webhook is late, and the sync reads the level first.
    store.setAvailable(index, location, 5);
    const sync = await enqueueCatalogSync(env.pool, env.shopId, "incremental");
    await waitFor("the incremental sync", async () => {
      const { rows } = await env.pool.query<{ status: string }>("select status from jobs where id = $1", [sync?.job_id]);
      return rows[0]?.status === "completed" ? true : undefined;
    });
    const runs = async () =>
      (await env.pool.query<{ trigger: string; status: string }>("select trigger, status from bis_alert_runs where shop_id = $1 and variant_id = $2", [env.shopId, variantId])).rows;
    const opened = await runs();
    expect(opened.map((r) => r.trigger)).toEqual(["catalog_sync"]);
    expect(["running", "completed"]).toContain(opened[0]?.status);

    // The webhook arrives: the stock is already 5, no rise, no second run.
    const outcome = await acceptWebhook(env.pool, {
      shopDomain: env.emulator.shopDomain,
      topic: "inventory_levels/update",
      webhookId: randomUUID(),
      payload: { inventory_item_id: store.inventoryItemId(index), location_id: location.id, available: 5, updated_at: new Date().toISOString() },
    });
    expect(outcome).toBe("accepted");
    expect(await runs()).toHaveLength(1);

    // The restock burst sends the first alert, without waiting for the inventory check.
    await waitFor("the alert", () => Promise.resolve(env.sink.messages.some((m) => m.to.includes("mirrored-restock@example.com")) ? true : undefined));
  });
});
