import { z } from "zod";
import type { Db } from "../core/db.ts";
import { declareTask, enqueue } from "../core/tasks.ts";

/**
 * Queues the write of the shop's storefront configuration metafield (shop-config.ts, decision
 * 0203), in the transaction of the change that moves it: each source setting's writer calls this
 * (preorder and developer storefront settings, back-in-stock channels and compliance, languages,
 * translations, the ad_pixel switch, and every offer change for live_offer_ids, decision 0232), so
 * no committed change misses its write and a rolled-back
 * one queues none. Imports only the core, so every area may call it without importing the others.
 */

export const shopConfigSyncTask = declareTask({ name: "storefront_shop_config_sync", payload: z.object({ shop_id: z.uuid() }) });

/** Attempts before graphile-worker gives up (its backoff: e^attempt seconds, about 6 hours in all). */
const MAX_ATTEMPTS = 10;

export const shopConfigSyncKey = (shopId: string): string => `storefront_shop_config:${shopId}`;

/**
 * Coalesced per shop: the job key replaces a write still waiting (a burst of changes is one write
 * of the configuration as it is when the job runs), and the queue of the same name runs one write
 * of a shop at a time (a change made while one runs queues the next, which waits for it).
 */
export async function enqueueShopConfigSync(db: Db, shopId: string): Promise<void> {
  const key = shopConfigSyncKey(shopId);
  await enqueue(db, shopConfigSyncTask, { shop_id: shopId }, { queueName: key, jobKey: key, maxAttempts: MAX_ATTEMPTS });
}

/**
 * Forgets what was written, so the next write sends the value even if it did not change (a
 * metafield edited or deleted on the platform behind the service's back: bulk_sync_metafields),
 * and queues that write.
 */
export async function forceShopConfigSync(db: Db, shopId: string): Promise<void> {
  await db.query("update storefront_shop_metafields set digest = '', updated_at = now() where shop_id = $1", [shopId]);
  await enqueueShopConfigSync(db, shopId);
}
