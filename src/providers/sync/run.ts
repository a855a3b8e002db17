import type { Db } from "../../core/db.ts";
import type { SecretBox } from "../../core/secrets.ts";
import type { Log } from "../../logger.ts";
import type { TaggingOutcome } from "../../back_in_stock/signups/tagging.ts";
import { loadConnections, openCredential, recordCredentialVerdict, syncsTo } from "../connections.ts";
import { type ProviderConfig, providerAdapter } from "../index.ts";
import { type EmailProvider, ProviderError } from "../types.ts";
import type { SyncTarget } from "./model.ts";

interface SyncRunDeps {
  pool: Db;
  log: Log;
  config: ProviderConfig;
  secrets: SecretBox;
  /** This attempt (1 first) and the job's last. */
  attempt: number;
  maxAttempts: number;
}

/** Text kept in last_error: the error's message, never a credential (the adapters never put one in). */
const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, 500);

async function finish(db: Db, signupId: string, target: SyncTarget, fields: { status: "synced" | "failed" | "skipped" | "pending"; error?: string | null; memberId?: string; listId?: string }): Promise<void> {
  await db.query(
    `update signup_syncs set status = $3, last_error = $4, provider_member_id = coalesce($5, provider_member_id), list_id = coalesce($6, list_id),
       synced_at = case when $3 = 'synced' then now() else synced_at end, updated_at = now()
     where signup_id = $1 and target = $2`,
    [signupId, target, fields.status, fields.error ?? null, fields.memberId ?? null, fields.listId ?? null],
  );
}

/** Counts an attempt; answers false when there is nothing to do (the signup or its row is gone, or it is already synced). */
async function begin(db: Db, signupId: string, target: SyncTarget): Promise<boolean> {
  const { rowCount } = await db.query(
    "update signup_syncs set attempts = attempts + 1, updated_at = now() where signup_id = $1 and target = $2 and status in ('pending', 'failed')",
    [signupId, target],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * One attempt of a signup's sync to an e-mail provider: the member upserted into the connection's
 * audience (a repeat updates the same member, so a retry after a lost answer adds no duplicate).
 * Transient failures (unreachable, timeout, 5xx, 429) are recorded and thrown, to be retried with
 * graphile-worker's backoff; the last attempt marks the sync failed. A refused credential or a
 * refused request is final (failed, no retry); a refused credential also clears `verified`.
 */
export async function syncSignupToProvider(deps: SyncRunDeps, signupId: string, provider: EmailProvider): Promise<void> {
  const { rows } = await deps.pool.query<{ shop_id: string; channel: string; contact: string; first_name: string | null; locale: string; status: string }>(
    "select shop_id, channel, contact, first_name, locale, status from bis_signups where id = $1",
    [signupId],
  );
  const signup = rows[0];
  if (!signup || !(await begin(deps.pool, signupId, provider))) return;
  const connection = (await loadConnections(deps.pool, signup.shop_id))[provider];
  if (!syncsTo(connection) || connection.credential === null || connection.list_id === null) {
    await finish(deps.pool, signupId, provider, { status: "skipped", error: `sync to ${provider} was turned off or disconnected before this signup was sent` });
    return;
  }
  if (signup.status === "unsubscribed") {
    await finish(deps.pool, signupId, provider, { status: "skipped", error: "the signup unsubscribed before it was sent" });
    return;
  }
  const credential = openCredential(deps.secrets, connection) ?? "";
  try {
    const { member_id: memberId } = await providerAdapter(deps.config, provider).subscribe(credential, connection.list_id, {
      email: signup.contact,
      first_name: signup.first_name,
      locale: signup.locale,
    });
    await finish(deps.pool, signupId, provider, { status: "synced", memberId, listId: connection.list_id });
    await recordCredentialVerdict(deps.pool, signup.shop_id, provider, connection.credential, true);
  } catch (error) {
    const message = describe(error);
    const final = error instanceof ProviderError ? error.kind !== "transient" : false;
    const last = deps.attempt >= deps.maxAttempts;
    await finish(deps.pool, signupId, provider, { status: final || last ? "failed" : "pending", error: message });
    if (error instanceof ProviderError && error.kind === "refused") await recordCredentialVerdict(deps.pool, signup.shop_id, provider, connection.credential, false);
    deps.log.warn({ shopId: signup.shop_id, signupId, provider, attempt: deps.attempt, final: final || last, error: message }, "signup sync to an e-mail provider failed");
    if (!final) throw error;
  }
}

/**
 * The platform customer's tag as a tracked sync target: runs the existing tagging (`tag`) and
 * records its outcome in signup_syncs (a signup queued before sync tracking has no row: only the
 * tag is run). A throw is recorded and rethrown for graphile-worker's backoff.
 */
export async function trackPlatformTag(deps: Pick<SyncRunDeps, "pool" | "attempt" | "maxAttempts">, signupId: string, tag: () => Promise<TaggingOutcome>): Promise<void> {
  const tracked = await begin(deps.pool, signupId, "commerce_platform");
  try {
    const outcome = await tag();
    if (!tracked) return;
    if (outcome === "tagged") await finish(deps.pool, signupId, "commerce_platform", { status: "synced" });
    else if (outcome === "refused") await finish(deps.pool, signupId, "commerce_platform", { status: "failed", error: "the store platform refused the tag (unknown customer)" });
    else await finish(deps.pool, signupId, "commerce_platform", { status: "skipped", error: "tagging was turned off, the signup has no customer, or the shop is not connected" });
  } catch (error) {
    if (tracked) await finish(deps.pool, signupId, "commerce_platform", { status: deps.attempt >= deps.maxAttempts ? "failed" : "pending", error: describe(error) });
    throw error;
  }
}
