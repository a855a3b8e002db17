import type { Runner } from "graphile-worker";
import { describe, expect, it } from "vitest";
import { enqueueCatalogSync } from "../src/catalog/schedule.ts";
import { syncCatalog } from "../src/catalog/sync.ts";
import { type JobRow } from "../src/core/jobs.ts";
import { createLogger } from "../src/logger.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { testConfig } from "./helpers/app.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const PRODUCTS = 24;
const VARIANTS_PER_PRODUCT = 3;
const log = createLogger("silent");
const env = useTestEnv({
  app: false,
  shop: true,
  emulator: {
    seed: { products: PRODUCTS, variantsPerProduct: VARIANTS_PER_PRODUCT, locations: 3, markets: 2, collections: 4 },
    throttle: { maximumAvailable: 100_000, restoreRate: 100_000 },
  },
  connect: true,
});

async function count(table: string): Promise<number> {
  const { rows } = await env.pool.query<{ n: number }>(`select count(*)::int as n from ${table} where shop_id = $1`, [env.shopId]);
  return rows[0]?.n ?? 0;
}

interface AdminVariant {
  id: string;
  legacy_id: number;
  product_id: string;
  title: string;
  sku: string | null;
  inventory_item_id: string;
  available: { location_id: string; available: number }[];
}

/** The emulator's own view (numeric ids on its admin routes), in the mirror's gid form. */
async function adminVariants(): Promise<AdminVariant[]> {
  const response = await fetch(`${env.emulator.origin}/admin/variants?limit=1000`);
  const { variants } = (await response.json()) as {
    variants: (Omit<AdminVariant, "inventory_item_id" | "available"> & { inventory_item_id: number; available: { location_id: number; available: number }[] })[];
  };
  return variants.map((v) => ({
    ...v,
    inventory_item_id: `gid://shopify/InventoryItem/${v.inventory_item_id}`,
    available: v.available.map((a) => ({ location_id: `gid://shopify/Location/${a.location_id}`, available: a.available })),
  }));
}

async function sync(mode: "full" | "incremental") {
  return syncCatalog({ pool: env.pool, client: await env.platform.clientFor(env.pool, env.shopId), shopId: env.shopId, mode, log });
}

describe("catalog mirror", () => {
  it("a full sync mirrors every product, variant, inventory level, location, market and collection", async () => {
    const result = await sync("full");
    expect(result).toMatchObject({ mode: "full", products: PRODUCTS, variants: PRODUCTS * VARIANTS_PER_PRODUCT, locations: 3, markets: 2, collections: 4 });
    expect(await count("products")).toBe(PRODUCTS);
    expect(await count("variants")).toBe(PRODUCTS * VARIANTS_PER_PRODUCT);
    expect(await count("locations")).toBe(3);
    expect(await count("markets")).toBe(2);

    // Every variant and every level matches what the platform says.
    const expected = await adminVariants();
    expect(expected).toHaveLength(PRODUCTS * VARIANTS_PER_PRODUCT);
    const { rows: variants } = await env.pool.query<{ id: string; legacy_id: string; product_id: string; sku: string | null; inventory_item_id: string }>(
      "select id, legacy_id, product_id, sku, inventory_item_id from variants where shop_id = $1 order by legacy_id",
      [env.shopId],
    );
    expect(variants).toEqual(
      [...expected]
        .sort((a, b) => a.legacy_id - b.legacy_id)
        .map((v) => ({ id: v.id, legacy_id: String(v.legacy_id), product_id: v.product_id, sku: v.sku, inventory_item_id: v.inventory_item_id })),
    );
    const { rows: levels } = await env.pool.query<{ inventory_item_id: string; location_id: string; available: number }>(
      "select inventory_item_id, location_id, available from inventory_levels where shop_id = $1",
      [env.shopId],
    );
    const expectedLevels = expected.flatMap((v) => v.available.map((a) => ({ inventory_item_id: v.inventory_item_id, location_id: a.location_id, available: a.available })));
    const key = (l: { inventory_item_id: string; location_id: string }) => `${l.inventory_item_id}|${l.location_id}`;
    expect([...levels].sort((a, b) => key(a).localeCompare(key(b)))).toEqual([...expectedLevels].sort((a, b) => key(a).localeCompare(key(b))));
  });

  it("the account endpoints' tables now come from the mirror", async () => {
    const { rows } = await env.pool.query<{ active: boolean }>("select active from locations where shop_id = $1 order by id", [env.shopId]);
    expect(rows.map((r) => r.active)).toEqual([true, true, false]);
    const { rows: markets } = await env.pool.query<{ is_primary: boolean; countries: string[] }>("select is_primary, countries from markets where shop_id = $1 order by id", [env.shopId]);
    expect(markets[0]?.is_primary).toBe(true);
    expect(markets.every((m) => m.countries.length > 0)).toBe(true);
  });

  it("an incremental sync picks up a change and nothing else", async () => {
    const [variant] = await adminVariants();
    if (!variant) throw new Error("no variants");
    const level = variant.available[0];
    if (!level) throw new Error("no level");
    await fetch(`${env.emulator.origin}/admin/inventory`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ variant_id: variant.id, available: level.available + 17, location_id: level.location_id }),
    });
    await fetch(`${env.emulator.origin}/admin/products/${encodeURIComponent(variant.product_id)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Changed on the platform" }),
    });
    const result = await sync("incremental");
    // The inventory change also moves its variant's updatedAt; the title change moves its product's.
    expect(result).toMatchObject({ mode: "incremental", products: 1, variants: 1, inventory_levels: 1, deleted: 0 });
    const { rows } = await env.pool.query<{ available: number; title: string }>(
      `select l.available, p.title from inventory_levels l, products p
       where l.shop_id = $1 and l.inventory_item_id = $2 and l.location_id = $3 and p.shop_id = $1 and p.id = $4`,
      [env.shopId, variant.inventory_item_id, level.location_id, variant.product_id],
    );
    expect(rows[0]).toEqual({ available: level.available + 17, title: "Changed on the platform" });
  });

  it("a full sync removes what the platform no longer has", async () => {
    await env.pool.query(
      `insert into variants (shop_id, id, legacy_id, product_id, title, price, inventory_policy, inventory_item_id, platform_updated_at, seen_at)
       values ($1, 'gid://shopify/ProductVariant/999999', 999999, 'gid://shopify/Product/1', 'Gone', 1, 'DENY', 'gid://shopify/InventoryItem/999999', now(), now() - interval '1 day')`,
      [env.shopId],
    );
    const result = await sync("full");
    expect(result.deleted).toBe(1);
    expect(await count("variants")).toBe(PRODUCTS * VARIANTS_PER_PRODUCT);
  });

  it("runs as a coalesced job in the worker, visible as a completed job", async () => {
    let runner: Runner | undefined;
    try {
      const first = await enqueueCatalogSync(env.pool, env.shopId, "incremental");
      expect(first).toBeDefined();
      expect(await enqueueCatalogSync(env.pool, env.shopId, "incremental")).toBeUndefined();
      runner = await startWorker({ pool: env.pool, log, config: testConfig(env.db.url), platform: env.platform }, { pollInterval: 100, cron: false });
      const job = await waitFor("the sync job to complete", async () => {
        const { rows } = await env.pool.query<JobRow>("select * from jobs where id = $1", [first?.job_id]);
        return rows[0]?.status === "completed" ? rows[0] : undefined;
      });
      expect(job.result).toMatchObject({ mode: "incremental", products: 0, variants: 0 });
    } finally {
      await runner?.stop();
    }
  });
});
