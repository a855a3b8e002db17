import { beforeAll, describe, expect, it } from "vitest";
import type { PlatformRequester } from "../src/platform/client.ts";
import { syncOfferInventoryPolicies } from "../src/preorders/sync/inventory-policy.ts";
import { invoke } from "./helpers/app.ts";
import { variantGid } from "./helpers/bis-seed.ts";
import { newOffer, offerCall } from "./helpers/offers.ts";
import { mirrorVariants, useSyncEnv, waitSynced } from "./helpers/offer-sync.ts";
import { waitFor } from "./helpers/wait.ts";

// inventory.continue_selling.enabled on the platform: CONTINUE while the offer is active with it on,
// the variant's own policy back when the offer ends, the variant leaves it, or the setting goes off.
const env = useSyncEnv({ products: 10, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1 });
let legacy: number[];

beforeAll(async () => {
  // The seed gives some variants CONTINUE: these tests start from DENY ones.
  legacy = (await mirrorVariants(env)).map((v) => v.legacy_id).filter((id) => env.emulator.store.variant(id)?.inventoryPolicy === "DENY");
  expect(legacy.length).toBeGreaterThanOrEqual(7);
});

const call = (method: string, id: string, suffix = "", body?: unknown) => offerCall(env.app, env.key, method, id, suffix, body);
const at = (i: number): number => legacy[i] ?? 0;

/** The platform's (the emulator's) policy of each variant. */
function platformPolicies(indexes: number[]): string[] {
  return indexes.map((i) => env.emulator.store.variant(at(i))?.inventoryPolicy ?? "missing");
}

/** The catalog mirror's policy of each variant. */
async function mirrorPolicies(indexes: number[]): Promise<string[]> {
  const { rows } = await env.app.pool.query<{ id: string; inventory_policy: string }>("select id, inventory_policy from variants where shop_id = $1 and id = any($2::text[])", [
    env.shopId,
    indexes.map((i) => variantGid(at(i))),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r.inventory_policy]));
  return indexes.map((i) => byId.get(variantGid(at(i))) ?? "missing");
}

describe("continue_selling sets the variants' inventory policy on the platform", () => {
  it("an active offer sets CONTINUE on its variants (the mirror and inventory_status see it); disabling it restores DENY", async () => {
    await env.startWorker();
    expect(platformPolicies([0, 1])).toEqual(["DENY", "DENY"]);
    const id = await newOffer(env, { products: { variant_ids: [at(0), at(1)] } }, { enable: true });
    await waitSynced(env, id);
    expect(platformPolicies([0, 1])).toEqual(["CONTINUE", "CONTINUE"]);
    expect(await mirrorPolicies([0, 1])).toEqual(["CONTINUE", "CONTINUE"]);
    const status = await invoke(env.app, "GET", `/preorders/products/inventory_status?variant_ids=${at(0)}`, { key: env.key });
    expect(status.status).toBe(200);
    const variant = (status.body as { variants: { inventory_policy: string; offers: { offer_id: string; notes: { code: string }[] }[] }[] }).variants[0];
    expect(variant?.inventory_policy).toBe("CONTINUE");
    expect(variant?.offers.find((o) => o.offer_id === id)?.notes.map((n) => n.code)).not.toContain("inventory_policy_deny");

    expect((await call("POST", id, "/disable")).status).toBe(202);
    await waitSynced(env, id);
    expect(platformPolicies([0, 1])).toEqual(["DENY", "DENY"]);
    expect(await mirrorPolicies([0, 1])).toEqual(["DENY", "DENY"]);
  });

  it("turning the setting off restores DENY, but a variant the merchant had at CONTINUE stays CONTINUE", async () => {
    await env.startWorker();
    const own = env.emulator.store.variant(at(3));
    if (!own) throw new Error("no variant 3");
    own.inventoryPolicy = "CONTINUE";
    const id = await newOffer(env, { products: { variant_ids: [at(2), at(3)] } }, { enable: true });
    await waitSynced(env, id);
    expect(platformPolicies([2, 3])).toEqual(["CONTINUE", "CONTINUE"]);

    expect((await call("PATCH", id, "/inventory", { continue_selling: { enabled: false } })).status).toBe(202);
    await waitSynced(env, id);
    expect(platformPolicies([2, 3])).toEqual(["DENY", "CONTINUE"]);

    expect((await call("PATCH", id, "/inventory", { continue_selling: { enabled: true } })).status).toBe(202);
    await waitSynced(env, id);
    expect(platformPolicies([2, 3])).toEqual(["CONTINUE", "CONTINUE"]);
    expect((await call("DELETE", id)).status).toBe(202);
    await waitSynced(env, id);
    expect(platformPolicies([2, 3])).toEqual(["DENY", "CONTINUE"]);
  });

  it("a variant that leaves the offer gets DENY back; a variant two offers share keeps CONTINUE until the last one lets it go", async () => {
    await env.startWorker();
    const first = await newOffer(env, { products: { variant_ids: [at(4), at(5), at(6)] } }, { enable: true });
    await waitSynced(env, first);
    const second = await newOffer(env, { products: { variant_ids: [at(6)] } }, { enable: true });
    await waitSynced(env, second);
    expect(platformPolicies([4, 5, 6])).toEqual(["CONTINUE", "CONTINUE", "CONTINUE"]);

    expect((await call("POST", first, "/products/remove_variants", { variant_ids: [at(4)] })).status).toBe(202);
    await waitSynced(env, first);
    expect(platformPolicies([4, 5, 6])).toEqual(["DENY", "CONTINUE", "CONTINUE"]);

    expect((await call("POST", first, "/disable")).status).toBe(202);
    await waitSynced(env, first);
    expect(platformPolicies([5, 6])).toEqual(["DENY", "CONTINUE"]);
    expect((await call("POST", second, "/disable")).status).toBe(202);
    await waitSynced(env, second);
    expect(platformPolicies([6])).toEqual(["DENY"]);
  });

  it("a sync that fails part way records what the platform took: its retry and the release keep the variants' own DENY", async () => {
    // Two DENY variants of different products: one productVariantsBulkUpdate call each.
    const rest = legacy.slice(10);
    const first = rest[0] ?? 0;
    const second = rest.find((id) => env.emulator.store.variant(id)?.productId !== env.emulator.store.variant(first)?.productId) ?? 0;
    const variantIds = [first, second].map(variantGid);
    // A draft offer: the worker's sync leaves its variants alone, the test drives this part by hand.
    const offerId = await newOffer(env, { products: { variant_ids: [first, second] } });
    const real = await env.platform.clientFor(env.app.pool, env.shopId);
    let writes = 0;
    const flaky: PlatformRequester = {
      request: (query, variables, options) => {
        if (query.includes("productVariantsBulkUpdate(") && ++writes === 2) return Promise.reject(new Error("the platform failed the second write"));
        return real.request(query, variables, options);
      },
    };
    const target = { shopId: env.shopId, offerId, variantIds };
    await expect(syncOfferInventoryPolicies(env.app.pool, flaky, target)).rejects.toThrow("second write");
    expect([first, second].map((id) => env.emulator.store.variant(id)?.inventoryPolicy)).toEqual(["CONTINUE", "DENY"]);
    await syncOfferInventoryPolicies(env.app.pool, real, target);
    expect([first, second].map((id) => env.emulator.store.variant(id)?.inventoryPolicy)).toEqual(["CONTINUE", "CONTINUE"]);
    await syncOfferInventoryPolicies(env.app.pool, real, { ...target, variantIds: [] });
    expect([first, second].map((id) => env.emulator.store.variant(id)?.inventoryPolicy)).toEqual(["DENY", "DENY"]);
  });

  it("two offers of one variant syncing at once: the one letting go does not restore DENY under the one claiming it", async () => {
    const variant = legacy[legacy.length - 1] ?? 0;
    const variantIds = [variantGid(variant)];
    const letting = await newOffer(env, { products: { variant_ids: [variant] } });
    const claiming = await newOffer(env, { products: { variant_ids: [variant] } });
    const real = await env.platform.clientFor(env.app.pool, env.shopId);
    await syncOfferInventoryPolicies(env.app.pool, real, { shopId: env.shopId, offerId: letting, variantIds });
    expect(env.emulator.store.variant(variant)?.inventoryPolicy).toBe("CONTINUE");
    // The restore of DENY is held at the platform's door until the other offer's claim has either
    // finished or is waiting for the shop's lock: the two syncs overlap however fast either runs.
    let restoring!: () => void;
    const atPlatform = new Promise<void>((resolve) => (restoring = resolve));
    let proceed!: () => void;
    const gate = new Promise<void>((resolve) => (proceed = resolve));
    const held: PlatformRequester = {
      request: async (query, variables, options) => {
        if (query.includes("productVariantsBulkUpdate(")) {
          restoring();
          await gate;
        }
        return real.request(query, variables, options);
      },
    };
    const release = syncOfferInventoryPolicies(env.app.pool, held, { shopId: env.shopId, offerId: letting, variantIds: [] });
    await atPlatform;
    let claimed = false;
    const claim = syncOfferInventoryPolicies(env.app.pool, real, { shopId: env.shopId, offerId: claiming, variantIds }).finally(() => (claimed = true));
    await waitFor("the claim done or waiting for the shop's lock", async () => {
      if (claimed) return true;
      const { rows } = await env.app.pool.query<{ n: number }>("select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())");
      return (rows[0]?.n ?? 0) > 0 ? true : undefined;
    });
    proceed();
    await Promise.all([release, claim]);
    expect(env.emulator.store.variant(variant)?.inventoryPolicy).toBe("CONTINUE");
    const { rows } = await env.app.pool.query<{ offer_id: string; original_policy: string }>("select offer_id, original_policy from preorder_offer_inventory_policies where shop_id = $1 and variant_id = $2", [env.shopId, variantIds[0]]);
    expect(rows).toEqual([{ offer_id: claiming, original_policy: "DENY" }]);
  });
});
