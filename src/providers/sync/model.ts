import { z } from "zod";
import type { Db } from "../../core/db.ts";
import { timestampOutput } from "../../core/outputs.ts";
import { declareTask } from "../../core/tasks.ts";
import { EMAIL_PROVIDERS } from "../types.ts";

/** Where a signup is synced: an e-mail provider's audience, or the platform customer's tag. */
export const SYNC_TARGETS = [...EMAIL_PROVIDERS, "commerce_platform"] as const;
export type SyncTarget = (typeof SYNC_TARGETS)[number];
const SYNC_STATUSES = ["pending", "synced", "failed", "skipped"] as const;
type SyncStatus = (typeof SYNC_STATUSES)[number];

/**
 * Attempts of a sync job. graphile-worker waits exp(min(attempt, 10)) seconds between attempts:
 * the 10th retry comes about 9.7 hours after the first failure, each later one 6.1 hours after
 * the previous, so 25 attempts ride out about four days of provider outage.
 */
export const SYNC_MAX_ATTEMPTS = 25;

/** One signup's sync to one provider (job key `provider_sync_signup:<signup>:<target>`; run: src/providers/jobs/sync-signup.ts). */
export const providerSyncTask = declareTask({
  name: "provider_sync_signup",
  payload: z.object({ signup_id: z.uuid(), target: z.enum(EMAIL_PROVIDERS) }),
});

export const syncJobKey = (signupId: string, target: SyncTarget): string =>
  target === "commerce_platform" ? `bis_tag_customer:${signupId}` : `${providerSyncTask.name}:${signupId}:${target}`;

export const signupSyncOutput = z
  .partialRecord(
    z.enum(SYNC_TARGETS),
    z.strictObject({
      status: z.enum(SYNC_STATUSES).describe("pending (queued or retrying), synced, failed (final), skipped (the target was turned off before it ran)"),
      attempts: z.int().min(0),
      last_error: z.string().nullable().describe("the last failure, kept while retrying"),
      synced_at: timestampOutput.nullable(),
    }),
  )
  .describe("The signup's sync to each target it was sent to (e-mail providers, the platform customer's tag); empty when none was on");
type SignupSync = z.output<typeof signupSyncOutput>;

/** Marks the (signup, target) sync pending again: a new signup, or a resumed one, is sent afresh. */
export async function markSyncPending(db: Db, shopId: string, signupId: string, target: SyncTarget): Promise<void> {
  await db.query(
    `insert into signup_syncs (signup_id, target, shop_id) values ($1, $2, $3)
     on conflict (signup_id, target) do update set status = 'pending', attempts = 0, last_error = null, synced_at = null, updated_at = now()`,
    [signupId, target, shopId],
  );
}

/** The sync state of each signup, by id (a signup with none maps to `{}`). */
export async function loadSignupSyncs(db: Db, signupIds: readonly string[]): Promise<Map<string, SignupSync>> {
  const out = new Map<string, SignupSync>(signupIds.map((id) => [id, {}]));
  if (signupIds.length === 0) return out;
  const { rows } = await db.query<{ signup_id: string; target: SyncTarget; status: SyncStatus; attempts: number; last_error: string | null; synced_at: Date | null }>(
    "select signup_id, target, status, attempts, last_error, synced_at from signup_syncs where signup_id = any($1::uuid[]) order by target",
    [signupIds],
  );
  for (const row of rows) {
    const entry = out.get(row.signup_id);
    if (entry) entry[row.target] = { status: row.status, attempts: row.attempts, last_error: row.last_error, synced_at: row.synced_at?.toISOString() ?? null };
  }
  return out;
}
