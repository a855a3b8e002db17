import type pg from "pg";
import { type Db, withTransaction } from "../../core/db.ts";
import { enqueue } from "../../core/tasks.ts";
import { MAX_NOTIFICATION_ATTEMPTS, notificationRecoverTask, notificationSendTask } from "./task-refs.ts";

/**
 * RECOVERY of the preorder notification ledger (the `preorders_notification_recover` task, from
 * the crontab every 5 minutes, and once when a worker starts: enqueueNotificationRecovery). A row is sent by its own job (`preorders_notification_send:<id>`); when that job
 * runs out of attempts on an error the sender could not record (the database, settings that no
 * longer load, a bug), or is lost, the row would stay `pending` for ever. The sweep takes the
 * rows pending for longer than the grace period whose job is gone or dead (never one a worker
 * holds: a live job, a locked job, or a row a sender has locked are skipped), and:
 * - marks `failed` a row whose job ran out of attempts (its last error kept on the row): the
 *   failure was not transient, and retrying it again would loop;
 * - marks `failed` a row pending for longer than MAX_PENDING_HOURS (too late to tell the customer);
 * - otherwise queues its send again, under the same job key (the same message id when it goes).
 */

export const MAX_PENDING_HOURS = 24;
const PAGE = 500;

export interface NotificationRecovery {
  requeued: number;
  failed: number;
}

interface Candidate {
  id: string;
  expired: boolean;
  job_attempts: number | null;
  job_error: string | null;
}

export async function recoverNotifications(pool: pg.Pool, options: { graceSeconds?: number } = {}): Promise<NotificationRecovery> {
  const result: NotificationRecovery = { requeued: 0, failed: 0 };
  for (;;) {
    const count = await withTransaction(pool, async (db) => {
      const { rows } = await db.query<Candidate>(
        `select n.id, n.created_at < now() - make_interval(hours => $4) as expired, j.attempts as job_attempts, j.last_error as job_error
         from preorder_notifications n
         left join graphile_worker.jobs j on j.key = $2 || ':' || n.id
         where n.status = 'pending' and n.updated_at < now() - make_interval(secs => $1)
           and (j.id is null or (j.attempts >= j.max_attempts and j.locked_at is null))
         order by n.created_at, n.id
         limit $3
         for update of n skip locked`,
        [options.graceSeconds ?? 300, notificationSendTask.name, PAGE, MAX_PENDING_HOURS],
      );
      for (const row of rows) {
        const error =
          row.job_attempts !== null
            ? `The send job ran out of attempts (${row.job_attempts}): ${(row.job_error ?? "no error recorded").slice(0, 500)}`
            : row.expired
              ? `Pending for over ${MAX_PENDING_HOURS} hours with no send job`
              : undefined;
        if (error) {
          await db.query("update preorder_notifications set status = 'failed', last_error = $2, updated_at = now() where id = $1", [row.id, error]);
          result.failed += 1;
        } else {
          await enqueue(db, notificationSendTask, { notification_id: row.id }, { jobKey: `${notificationSendTask.name}:${row.id}`, maxAttempts: MAX_NOTIFICATION_ATTEMPTS });
          await db.query("update preorder_notifications set updated_at = now() where id = $1", [row.id]);
          result.requeued += 1;
        }
      }
      return rows.length;
    });
    if (count < PAGE) return result;
  }
}

/**
 * Queues one recovery sweep now, with no grace period (a worker that starts: what a killed one
 * left pending is picked up at once, not at the next cron run). The cron job's key, so the two
 * coalesce. No grace is safe: a row a live sender holds is locked, and a row whose job is queued,
 * running or retrying is skipped.
 */
export async function enqueueNotificationRecovery(db: Db): Promise<void> {
  await enqueue(db, notificationRecoverTask, { grace_seconds: 0 }, { jobKey: notificationRecoverTask.name, maxAttempts: 3 });
}
