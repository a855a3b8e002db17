import type { Db } from "../../core/db.ts";
import { enqueue } from "../../core/tasks.ts";
import { tagCustomerTask } from "../../back_in_stock/signups/tagging.ts";
import { syncsTo } from "../connections.ts";
import { loadSyncTargets } from "../integrations.ts";
import { EMAIL_PROVIDERS } from "../types.ts";
import { SYNC_MAX_ATTEMPTS, markSyncPending, providerSyncTask, syncJobKey } from "./model.ts";

interface SyncedSignup {
  id: string;
  shop_id: string;
  channel: "email" | "sms";
  customer_id: string | null;
}

/**
 * Queues, on the signup's transaction, one job per target it goes to, each with a pending
 * signup_syncs row: every e-mail provider with sync on (e-mail signups only: the providers hold
 * e-mail audiences) when `providers`, and the platform customer's tag (tagging on and a
 * customer_id known: the existing bis_tag_customer task) when `platformTag`. Job keys make a
 * repeat replace the queued job rather than add one.
 */
export async function enqueueSignupSync(db: Db, signup: SyncedSignup, what: { providers: boolean; platformTag: boolean }): Promise<void> {
  const targets = await loadSyncTargets(db, signup.shop_id);
  if (what.providers && signup.channel === "email") {
    for (const provider of EMAIL_PROVIDERS) {
      if (!syncsTo(targets.connections[provider])) continue;
      await markSyncPending(db, signup.shop_id, signup.id, provider);
      await enqueue(db, providerSyncTask, { signup_id: signup.id, target: provider }, { jobKey: syncJobKey(signup.id, provider), maxAttempts: SYNC_MAX_ATTEMPTS });
    }
  }
  if (what.platformTag && targets.tagging.enabled && signup.customer_id) {
    await markSyncPending(db, signup.shop_id, signup.id, "commerce_platform");
    await enqueue(db, tagCustomerTask, { signup_id: signup.id }, { jobKey: syncJobKey(signup.id, "commerce_platform"), maxAttempts: SYNC_MAX_ATTEMPTS });
  }
}
