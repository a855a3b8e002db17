import type { Db } from "../core/db.ts";

/**
 * Whether the app is installed on a shop's store: app/uninstalled marks the shop uninstalled and
 * drops its token (src/webhooks/lifecycle/uninstalled.ts); a reinstall (PlatformRuntime.connect)
 * clears the mark. Every process reads the mark from the database when it matters, never from a
 * cache: the process that took the webhook is rarely the one running the shop's jobs.
 */

/**
 * Thrown where a shop's platform client is asked for while the app is uninstalled from its store:
 * the job it ends is skipped (finished, not failed, never retried: src/core/task-registry.ts and
 * src/core/job-task.ts), since no retry can succeed before the merchant reinstalls.
 */
export class ShopUninstalled extends Error {
  override name = "ShopUninstalled";
  readonly shopId: string;

  constructor(shopId: string) {
    super(`the app is uninstalled from the store of shop ${shopId}`);
    this.shopId = shopId;
  }
}

/** What a skipped application job records as its result. */
export const UNINSTALLED_SKIP = { skipped: "the app is uninstalled from the shop's store" } as const;

/** The shops among `shopIds` whose store the app is uninstalled from. */
export async function uninstalledShops(db: Db, shopIds: readonly string[]): Promise<Set<string>> {
  if (shopIds.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>("select id from shops where id = any($1::uuid[]) and platform_uninstalled_at is not null", [[...new Set(shopIds)]]);
  return new Set(rows.map((r) => r.id));
}
