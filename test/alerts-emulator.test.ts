import { runNextBatchNow } from "./helpers/alert-runs.ts";
import { describe, expect, it } from "vitest";
import { alertRunKey } from "../src/back_in_stock/alerts/runs.ts";
import { syncCatalog } from "../src/catalog/sync.ts";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";

// The whole path against the store platform emulator over HTTP: its signed inventory and order
// webhooks, the live stock read before each batch.

const env = useTestEnv({
  shop: false,
  smtp: true,
  dataDir: true,
  emulator: { seed: { products: 2, variantsPerProduct: 1, customers: 2 }, webhooks: true },
  worker: { poolSize: 10, pollInterval: 50 },
});

async function admin(pathname: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${env.emulator.origin}${pathname}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.ok).toBe(true);
  return response.json();
}

async function settled(shopId: string): Promise<void> {
  await env.emulator.webhooksSettled();
  await waitFor("webhooks processed", async () => {
    const { rows } = await env.app.pool.query("select 1 from webhook_deliveries where shop_id = $1 and processed_at is null", [shopId]);
    return rows.length === 0 ? true : undefined;
  });
}

describe("alerts against the platform emulator", () => {
  it("a restock on the platform alerts the oldest; a sale the webhook did not announce stops the run at the live re-read; an order converts", async () => {
    const { shopId, apiKey } = await createShopWithKey(env.app.pool, "Emulated Shop");
    await env.platform.connect(env.app.pool, shopId, { domain: env.emulator.shopDomain, graphqlUrl: env.emulator.graphqlUrl, accessToken: env.emulator.accessToken });
    const store = env.emulator.store;
    const variant = store.variants[0];
    if (!variant) throw new Error("no variant");
    const index = store.variantIndex(variant);
    for (const location of store.activeLocations()) store.setAvailable(index, location, 0);
    await syncCatalog({ pool: env.app.pool, client: await env.platform.clientFor(env.app.pool, shopId), shopId, mode: "full", log: env.app.log });
    const variantId = `gid://shopify/ProductVariant/${variant.id}`;
    expect(await invoke(env.app, "PATCH", "/back_in_stock/settings", { key: apiKey, body: { delivery: { batch_multiplier: 1, batch_interval_seconds: 3600 } } })).toMatchObject({ status: 202 });
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4]) {
      const answer = await invoke(env.app, "POST", "/back_in_stock/signups", { key: apiKey, body: { variant_id: variant.id, channel: "email", email: `emu-${n}@example.com` } });
      expect(answer.status).toBe(202);
      ids.push((answer.body as { id: string }).id);
    }

    await admin("/admin/inventory", { variant_id: variant.id, available: 2 });
    await settled(shopId);
    await waitFor("two alerts", async () => (env.sink.messages.filter((m) => m.to.startsWith("emu-")).length === 2 ? true : undefined));
    expect(env.sink.messages.filter((m) => m.to.startsWith("emu-")).map((m) => m.to).sort()).toEqual(["emu-1@example.com", "emu-2@example.com"]);

    // Sold out on the platform, its webhook lost: the mirror still says 2, the live read says 0.
    for (const location of store.activeLocations()) store.setAvailable(index, location, 0);
    await runNextBatchNow(env.app.pool, shopId, alertRunKey(shopId, variantId));
    const stopped = await waitFor("the run to stop at the live read", async () => {
      const { rows } = await env.app.pool.query<{ stop_reason: string; last_available: number }>(
        "select stop_reason, last_available from bis_alert_runs where shop_id = $1 and status = 'stopped'",
        [shopId],
      );
      return rows[0];
    });
    expect(stopped).toEqual({ stop_reason: "out_of_stock", last_available: 0 });
    const { rows: mirror } = await env.app.pool.query<{ available: number }>("select sum(available)::int as available from inventory_levels where shop_id = $1 and inventory_item_id = $2", [shopId, `gid://shopify/InventoryItem/${store.inventoryItemId(index)}`]);
    expect(mirror[0]?.available).toBe(2);
    expect(env.sink.messages.filter((m) => m.to.startsWith("emu-"))).toHaveLength(2);

    // The first customer buys: the platform's orders/create webhook converts that signup.
    await admin("/admin/orders", { email: "emu-1@example.com", line_items: [{ variant_id: variant.id, quantity: 1 }] });
    await settled(shopId);
    const { rows } = await env.app.pool.query<{ id: string; status: string; converted_order_id: string | null }>(
      "select id, status, converted_order_id from bis_signups where id = any($1::uuid[])",
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(ids.map((id) => byId.get(id)?.status)).toEqual(["converted", "notified", "waiting", "waiting"]);
    expect(byId.get(ids[0] ?? "")?.converted_order_id).toMatch(/^gid:\/\/shopify\/Order\/\d+$/);
  });
});
