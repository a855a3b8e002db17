import type { Db } from "../../core/db.ts";
import type { RecordedDelivery } from "./delivery.ts";

/**
 * app/uninstalled (its payload is the shop; nothing in it is needed): the shop's access token is
 * dropped (the store revoked it already) and the shop is marked uninstalled, so every job of the
 * shop that needs the store ends skipped and nothing is sent for it (src/platform/installation.ts);
 * the API keeps answering, since the merchant may reinstall. The catalog's last full sync is
 * forgotten: what changed in the store meanwhile came with no webhook, so the first scheduled sync
 * after a reinstall is a full one. A delivery triggered before the current token was stored (a
 * retry that outlived a reinstall) changes nothing.
 */
export async function applyAppUninstalled(db: Db, shopId: string, _payload: unknown, delivery: RecordedDelivery): Promise<void> {
  const { rowCount } = await db.query(
    `update shops set platform_access_token = null, platform_uninstalled_at = coalesce(platform_uninstalled_at, now()), updated_at = now()
     where id = $1 and (platform_connected_at is null or platform_connected_at <= $2)`,
    [shopId, delivery.triggeredAt],
  );
  if ((rowCount ?? 0) === 0) return;
  await db.query("update catalog_sync_state set last_full_sync_at = null where shop_id = $1", [shopId]);
}
