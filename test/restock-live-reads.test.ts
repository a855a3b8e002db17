import { describe, expect, it } from "vitest";
import { batchStock } from "../src/back_in_stock/alerts/stock.ts";
import type { PlatformRuntime } from "../src/platform/runtime.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";

// Later batches, the inventory check and recovery read stock live from the platform: the reads of
// one shop asked together go in one `nodes(ids:)` query (each read alone cost a query and its
// points against the shop's cost bucket).

const env = useTestEnv({ app: false, shop: false });

interface Call {
  shop: string;
  ids: string[];
}

/** A platform whose every variant has `units` at location 1 and 100 at location 2; it records each query's ids. */
function fakePlatform(units: (variantId: string) => number, fail = false): { platform: PlatformRuntime; calls: Call[] } {
  const calls: Call[] = [];
  const platform = {
    clientFor: async (_db: unknown, shop: string) => ({
      request: async (_query: string, variables: { ids: string[] }) => {
        calls.push({ shop, ids: variables.ids });
        if (fail) throw new Error("platform down");
        return {
          nodes: variables.ids.map((id) =>
            id.endsWith("/999")
              ? null
              : {
                  id,
                  inventoryItem: {
                    id: id.replace("ProductVariant", "InventoryItem"),
                    tracked: !id.endsWith("/777"),
                    inventoryLevels: {
                      nodes: [
                        { location: { id: "gid://shopify/Location/1", name: "Open" }, quantities: [{ name: "available", quantity: units(id) }] },
                        { location: { id: "gid://shopify/Location/2", name: "Closed" }, quantities: [{ name: "available", quantity: 100 }] },
                      ],
                      pageInfo: { hasNextPage: false, endCursor: null },
                    },
                  },
                },
          ),
        };
      },
    }),
  };
  return { platform: platform as unknown as PlatformRuntime, calls };
}

async function connectedShop(name: string): Promise<string> {
  const { shopId } = await createShopWithKey(env.pool, name);
  await env.pool.query("update shops set platform_graphql_url = 'http://127.0.0.1:1/graphql', platform_access_token = 'x' where id = $1", [shopId]);
  await env.pool.query(
    "insert into locations (shop_id, id, name, active, updated_at, seen_at) values ($1, 'gid://shopify/Location/2', 'Closed', false, now(), now())",
    [shopId],
  );
  return shopId;
}

describe("live stock reads", () => {
  it("of one shop asked together go in one nodes(ids:) query; each shop its own", async () => {
    const a = await connectedShop("Live Reads A");
    const b = await connectedShop("Live Reads B");
    const { platform, calls } = fakePlatform((id) => Number(id.split("/").at(-1)) % 10);
    const reads = await Promise.all([
      ...[801, 802, 803, 777, 999].map((n) => batchStock(env.pool, platform, env.log, a, variantGid(n))),
      batchStock(env.pool, platform, env.log, b, variantGid(804)),
    ]);
    expect(reads).toEqual([
      { available: 1, source: "platform" },
      { available: 2, source: "platform" },
      { available: 3, source: "platform" },
      // Untracked: always sellable; unknown to the platform: none.
      { available: 10_000, source: "platform" },
      { available: 0, source: "platform" },
      { available: 4, source: "platform" },
    ]);
    expect(calls.map((c) => ({ ...c, ids: [...c.ids].sort() })).sort((x, y) => x.ids.length - y.ids.length)).toEqual([
      { shop: b, ids: [variantGid(804)] },
      { shop: a, ids: [801, 802, 803, 777, 999].map(variantGid).sort() },
    ]);
  });

  it("fall back to the mirror, each of them, when the call fails or the shop is not connected", async () => {
    const a = await connectedShop("Live Reads Failing");
    await seedVariants(env.pool, a, [
      { n: 811, product: 811, available: 6 },
      { n: 812, product: 812, available: 7 },
    ]);
    const { platform, calls } = fakePlatform(() => 1, true);
    const reads = await Promise.all([811, 812].map((n) => batchStock(env.pool, platform, env.log, a, variantGid(n))));
    expect(reads).toEqual([
      { available: 6, source: "mirror" },
      { available: 7, source: "mirror" },
    ]);
    expect(calls).toHaveLength(1);

    const { shopId: offline } = await createShopWithKey(env.pool, "Live Reads Offline");
    await seedVariants(env.pool, offline, [{ n: 813, product: 813, available: 2 }]);
    const unused = fakePlatform(() => 1);
    expect(await batchStock(env.pool, unused.platform, env.log, offline, variantGid(813))).toEqual({ available: 2, source: "mirror" });
    expect(unused.calls).toHaveLength(0);
  });
});
