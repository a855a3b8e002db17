import { createHash } from "node:crypto";
import type pg from "pg";
import { PermanentJobFailure } from "../core/tasks.ts";
import { JSON_METAFIELD_MAX_BYTES, getShopMetafield, setMetafields } from "../platform/operations/metafields.ts";
import type { PlatformRuntime } from "../platform/runtime.ts";
import { buildShopStorefrontConfig } from "./build.ts";
import { SHOP_STOREFRONT_METAFIELD } from "./shop-config.ts";

/**
 * Writes the shop's storefront configuration metafield (decision 0203): builds it as the settings
 * are now, and sends it only when its digest differs from the one the platform last took
 * (storefront_shop_metafields), so a burst of changes that ends where it started, or a change of
 * a setting the widget does not read, writes nothing. A failure is recorded (last_error, until a
 * write succeeds) and rethrown for graphile-worker's backoff.
 */


export type ShopConfigOutcome = { outcome: "unchanged" } | { outcome: "not_connected" } | { outcome: "written"; bytes: number };

async function recordFailure(pool: pg.Pool, shopId: string, message: string): Promise<void> {
  await pool.query(
    `insert into storefront_shop_metafields (shop_id, last_error, last_error_at) values ($1, $2, now())
     on conflict (shop_id) do update set last_error = excluded.last_error, last_error_at = now(), updated_at = now()`,
    [shopId, message.slice(0, 2000)],
  );
}

export async function writeShopStorefrontConfig(deps: { pool: pg.Pool; platform: PlatformRuntime }, shopId: string, signal?: AbortSignal): Promise<ShopConfigOutcome> {
  const { pool } = deps;
  const value = JSON.stringify(await buildShopStorefrontConfig(pool, shopId));
  const digest = createHash("sha256").update(value).digest("hex");
  const { rows } = await pool.query<{ digest: string; connected: boolean }>(
    `select coalesce(m.digest, '') as digest, s.platform_graphql_url is not null and s.platform_access_token is not null as connected
     from shops s left join storefront_shop_metafields m on m.shop_id = s.id where s.id = $1`,
    [shopId],
  );
  const row = rows[0];
  if (!row) return { outcome: "unchanged" };
  if (row.digest === digest) {
    // What the platform holds is current: an error of a later value that was then reverted is stale.
    await pool.query("update storefront_shop_metafields set last_error = null, last_error_at = null, updated_at = now() where shop_id = $1 and last_error is not null", [shopId]);
    return { outcome: "unchanged" };
  }
  if (!row.connected) {
    // Not a passing fault: retrying cannot help until the shop is connected, which queues a write.
    await recordFailure(pool, shopId, "the shop is not connected to the store platform");
    return { outcome: "not_connected" };
  }
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > JSON_METAFIELD_MAX_BYTES) {
    // Only a change of the settings can shorten it, and that change queues its own write.
    const message = `the shop's storefront configuration is ${bytes} bytes, above the platform's ${JSON_METAFIELD_MAX_BYTES} for a json metafield: shorten the storefront translations`;
    await recordFailure(pool, shopId, message);
    throw new PermanentJobFailure(message);
  }
  try {
    const client = await deps.platform.clientFor(pool, shopId);
    const options = signal ? { signal } : {};
    const { namespace, key, type } = SHOP_STOREFRONT_METAFIELD;
    // The shop's id on the platform is the owner id; read, not stored, as it costs one point.
    const shop = await getShopMetafield(client, namespace, key, options);
    await setMetafields(client, [{ ownerId: shop.shopId, namespace, key, type, value }], options);
  } catch (error) {
    await recordFailure(pool, shopId, error instanceof Error ? error.message : String(error)).catch(() => undefined);
    throw error;
  }
  await pool.query(
    `insert into storefront_shop_metafields (shop_id, digest, written_at) values ($1, $2, now())
     on conflict (shop_id) do update set digest = excluded.digest, written_at = now(), last_error = null, last_error_at = null, updated_at = now()`,
    [shopId, digest],
  );
  return { outcome: "written", bytes };
}
