import type pg from "pg";
import type { PlatformRequester, RequestOptions } from "../../platform/client.ts";
import { type InventoryPolicy, getVariantPolicies, setVariantPolicies } from "../../platform/operations/variant-policies.ts";

/**
 * An offer's `inventory.continue_selling.enabled` on the platform: while the offer is active with it
 * on, each of its variants has inventory policy CONTINUE, so the platform keeps selling it at zero
 * stock (the preorder). Part of the offer sync (run.ts). The policy each variant had before is
 * recorded (preorder_offer_inventory_policies) and put back when the offer ends, the variant
 * leaves it, or the setting is turned off; a variant in several offers keeps CONTINUE until the
 * last of them lets it go, and a merchant's own CONTINUE is never turned into DENY. The catalog
 * mirror's inventory_policy is updated from the platform's answer, so inventory_status and the
 * variant lists see the change before the next catalog sync.
 */

export interface InventoryPolicySyncResult {
  /** Variants this offer now holds at CONTINUE that it did not before. */
  claimed: number;
  /** Variants this offer let go of. */
  released: number;
  /** productVariantsBulkUpdate writes of single variants (set and restored). */
  written: number;
}

interface Claim {
  variant_id: string;
  original_policy: InventoryPolicy;
}

/** Product of each variant, from the catalog mirror (productVariantsBulkUpdate takes one product per call). */
async function productsOf(pool: pg.Pool, shopId: string, variantIds: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ id: string; product_id: string }>("select id, product_id from variants where shop_id = $1 and id = any($2::text[])", [
    shopId,
    variantIds,
  ]);
  return new Map(rows.map((r) => [r.id, r.product_id]));
}

/**
 * Writes the policy of these variants, one call per product, and mirrors what the platform
 * answered; `taken` runs after each product's call with the variants the platform took, so what
 * is done is recorded before the next call can fail.
 */
async function writePolicies(
  pool: pg.Pool,
  client: PlatformRequester,
  shopId: string,
  changes: readonly { id: string; inventoryPolicy: InventoryPolicy }[],
  options: RequestOptions,
  taken: (variantIds: string[]) => Promise<void> = async () => undefined,
): Promise<number> {
  if (changes.length === 0) return 0;
  const products = await productsOf(pool, shopId, changes.map((c) => c.id));
  const byProduct = new Map<string, { id: string; inventoryPolicy: InventoryPolicy }[]>();
  for (const change of changes) {
    const productId = products.get(change.id);
    // Gone from the mirror: the platform deleted it, there is nothing to set.
    if (productId === undefined) continue;
    byProduct.set(productId, [...(byProduct.get(productId) ?? []), change]);
  }
  let written = 0;
  for (const [productId, variants] of byProduct) {
    const set = await setVariantPolicies(client, productId, variants, options);
    await pool.query(
      `update variants v set inventory_policy = s.policy
       from unnest($2::text[], $3::text[]) as s(id, policy)
       where v.shop_id = $1 and v.id = s.id`,
      [shopId, set.map((s) => s.id), set.map((s) => s.inventoryPolicy)],
    );
    await taken(variants.map((v) => v.id));
    written += set.length;
  }
  return written;
}

/**
 * Makes the platform's policies match the offer: CONTINUE on `variantIds` (the offer's variants
 * when it is active with continue_selling on, else none). Lets go first, then claims; each step is
 * recorded once the platform took it, so a retry after a failure goes on from there.
 */
export async function syncOfferInventoryPolicies(
  pool: pg.Pool,
  client: PlatformRequester,
  target: { shopId: string; offerId: string; variantIds: readonly string[] },
  options: RequestOptions = {},
): Promise<InventoryPolicySyncResult> {
  // One offer of the shop at a time: an offer letting a variant go must not restore DENY while
  // another records its claim on the same variant from the first one's row (offer syncs of
  // different offers run at once). A session lock on a connection of its own, held across the
  // platform calls; a crash drops the connection and with it the lock.
  const lock = await pool.connect();
  let broken = false;
  try {
    await lock.query("select pg_advisory_lock(hashtext($1))", [`preorders_inventory_policy:${target.shopId}`]);
    return await syncLocked(pool, client, target, options);
  } finally {
    try {
      await lock.query("select pg_advisory_unlock(hashtext($1))", [`preorders_inventory_policy:${target.shopId}`]);
    } catch {
      broken = true;
    }
    lock.release(broken);
  }
}

async function syncLocked(
  pool: pg.Pool,
  client: PlatformRequester,
  target: { shopId: string; offerId: string; variantIds: readonly string[] },
  options: RequestOptions,
): Promise<InventoryPolicySyncResult> {
  const { shopId, offerId } = target;
  const { rows } = await pool.query<Claim>("select variant_id, original_policy from preorder_offer_inventory_policies where offer_id = $1", [offerId]);
  const claims = new Map(rows.map((r) => [r.variant_id, r.original_policy]));
  const wanted = new Set(target.variantIds);
  let written = 0;

  // Let go: restore DENY where this offer was the last one holding a variant that had DENY before.
  const releasing = [...claims.keys()].filter((id) => !wanted.has(id)).sort();
  if (releasing.length > 0) {
    const { rows: others } = await pool.query<{ variant_id: string }>(
      "select distinct variant_id from preorder_offer_inventory_policies where shop_id = $1 and variant_id = any($2::text[]) and offer_id <> $3",
      [shopId, releasing, offerId],
    );
    const heldElsewhere = new Set(others.map((r) => r.variant_id));
    const restore = releasing.filter((id) => !heldElsewhere.has(id) && claims.get(id) === "DENY").map((id) => ({ id, inventoryPolicy: "DENY" as const }));
    written += await writePolicies(pool, client, shopId, restore, options);
    await pool.query("delete from preorder_offer_inventory_policies where offer_id = $1 and variant_id = any($2::text[])", [offerId, releasing]);
  }

  // Claim: the original policy is the one another offer recorded for the variant, else the platform's now.
  const claiming = [...wanted].filter((id) => !claims.has(id)).sort();
  if (claiming.length > 0) {
    const { rows: recorded } = await pool.query<Claim>(
      `select distinct on (variant_id) variant_id, original_policy from preorder_offer_inventory_policies
       where shop_id = $1 and variant_id = any($2::text[]) order by variant_id, set_at`,
      [shopId, claiming],
    );
    const original = new Map(recorded.map((r) => [r.variant_id, r.original_policy]));
    const unknown = claiming.filter((id) => !original.has(id));
    const live = unknown.length > 0 ? await getVariantPolicies(client, unknown, options) : new Map<string, InventoryPolicy>();
    for (const [id, policy] of live) original.set(id, policy);
    // A variant the platform no longer has is not claimed.
    const present = claiming.filter((id) => original.has(id));
    const record = async (ids: readonly string[]) => {
      if (ids.length === 0) return;
      await pool.query(
        `insert into preorder_offer_inventory_policies (offer_id, shop_id, variant_id, original_policy)
         select $1, $2, unnest($3::text[]), unnest($4::text[])
         on conflict (offer_id, variant_id) do nothing`,
        [offerId, shopId, ids, ids.map((id) => original.get(id))],
      );
    };
    // Already CONTINUE (another offer's, or the merchant's own): recorded at once. The others are
    // recorded product by product once the platform took CONTINUE: a retry after a failure part
    // way must not read the CONTINUE this sync wrote as the variant's own policy.
    const needsWrite = new Set(present.filter((id) => !recorded.some((r) => r.variant_id === id) && live.get(id) !== "CONTINUE"));
    await record(present.filter((id) => !needsWrite.has(id)));
    written += await writePolicies(pool, client, shopId, [...needsWrite].map((id) => ({ id, inventoryPolicy: "CONTINUE" as const })), options, record);
    return { claimed: present.length, released: releasing.length, written };
  }
  return { claimed: 0, released: releasing.length, written };
}
