import type { Db } from "../../core/db.ts";
import { enqueue } from "../../core/tasks.ts";
import type { TaskContext } from "../../core/tasks.ts";
import { type LedgerRecovery, recoverLedger } from "../../messaging/ledger/recover.ts";
import { preorderLedger } from "./ledger.ts";
import { notificationRecoverTask, notificationSendTask } from "./task-refs.ts";

/**
 * RECOVERY of the preorder notification ledger (the `preorders_notification_recover` task, from
 * the crontab every 5 minutes, and once when a worker starts: enqueueNotificationRecovery). A row
 * is sent by its own job (`preorders_notification_send:<id>`); when that job runs out of attempts
 * on an error the sender could not record (the database, settings that no longer load, a bug),
 * or is lost, the row would stay `pending` for ever. The messaging sweep
 * (src/messaging/ledger/recover.ts) fails it with the job's error, fails a row pending for longer
 * than MAX_PENDING_HOURS (too late to tell the customer), or queues its send again.
 */

const MAX_PENDING_HOURS = 24;

export async function recoverNotifications(ctx: Pick<TaskContext, "pool" | "channels" | "config">, options: { graceSeconds?: number } = {}): Promise<LedgerRecovery> {
  return recoverLedger(
    ctx,
    preorderLedger(ctx),
    { sendTask: notificationSendTask.name, ageColumn: "updated_at", maxPendingHours: MAX_PENDING_HOURS },
    { graceSeconds: options.graceSeconds ?? 300 },
  );
}

/**
 * Queues one recovery sweep now, with no grace period (a worker that starts: what a killed one
 * left pending is picked up at once, not at the next cron run). The cron job's key, so the two
 * coalesce. No grace is safe: a row a live sender holds is leased, and a row whose job is queued,
 * running or retrying is skipped.
 */
export async function enqueueNotificationRecovery(db: Db): Promise<void> {
  await enqueue(db, notificationRecoverTask, { grace_seconds: 0 }, { jobKey: notificationRecoverTask.name, maxAttempts: 3 });
}
