import { withTransaction } from "../../core/db.ts";
import { leaseDead } from "./lease.ts";
import { type ClaimedRow, type LedgerDeps, type MessageLedger, failClaimed } from "./send.ts";
import { QUEUE_RELATIONS } from "../../queue/relations.ts";

/**
 * RECOVERY of a ledger (each area's recover task: from the crontab, and once when a worker
 * starts). A sender killed mid-send leaves claimed rows pending with no one to send them; a send
 * job that ran out of attempts on an error nobody could record leaves its row pending for ever.
 * The sweep takes the pending rows under no live lease, older than the grace period, whose send
 * job is gone or dead (never one a job will still run), and:
 * (rows of a shop the app is uninstalled from are left as they are: their send would skip them,
 * so queuing it at every sweep is work for nothing; the first sweep after a reinstall takes them)
 * - marks `failed` a row whose job ran out of attempts, with the job's last error (the failure
 *   was not transient: retrying it again would loop);
 * - marks `failed` a row pending for longer than the area's `maxPendingHours`, if it has one
 *   (too late to tell the customer);
 * - otherwise queues the row's send job again, under its job key: the same message id when it goes.
 */

interface RecoveryRules {
  /** The area's send task (its jobs' keys are `<task>:<row id>`). */
  sendTask: string;
  /** The column whose age the grace period is measured on. */
  ageColumn: "created_at" | "updated_at";
  maxPendingHours?: number;
}

export interface LedgerRecovery {
  requeued: number;
  failed: number;
}

const PAGE = 500;

interface Orphan {
  id: string;
  created_at: Date;
  expired: boolean;
  job_attempts: number | null;
  job_error: string | null;
}

export async function recoverLedger<Row extends ClaimedRow, Reason extends string, Shop>(
  deps: LedgerDeps,
  ledger: MessageLedger<Row, Reason, Shop>,
  rules: RecoveryRules,
  options: { graceSeconds: number },
): Promise<LedgerRecovery> {
  const result: LedgerRecovery = { requeued: 0, failed: 0 };
  let after: Orphan | undefined;
  for (;;) {
    const { rows } = await deps.pool.query<Orphan>(
      `select l.id, l.created_at, coalesce(l.created_at < now() - make_interval(hours => $4::int), false) as expired,
              j.attempts as job_attempts, j.last_error as job_error
       from ${ledger.table} l
       left join ${QUEUE_RELATIONS.jobs} j on j.key = $2 || ':' || l.id
       where l.status = 'pending' and l.${rules.ageColumn} < now() - make_interval(secs => $1) and ${leaseDead("l")}
         and (j.id is null or (j.attempts >= j.max_attempts and j.locked_at is null))
         and not exists (select 1 from shops s where s.id = l.shop_id and s.platform_uninstalled_at is not null)
         and ($5::timestamptz is null or (l.created_at, l.id) > ($5, $6::uuid))
       order by l.created_at, l.id
       limit $3`,
      [options.graceSeconds, rules.sendTask, PAGE, rules.maxPendingHours ?? null, after?.created_at ?? null, after?.id ?? null],
    );
    const failures: { id: string; error: string }[] = [];
    const requeue: string[] = [];
    for (const row of rows) {
      if (row.job_attempts !== null) {
        failures.push({ id: row.id, error: `The send job ran out of attempts (${row.job_attempts}): ${(row.job_error ?? "no error recorded").slice(0, 500)}` });
      } else if (row.expired) {
        failures.push({ id: row.id, error: `Pending for over ${rules.maxPendingHours ?? 0} hours with no send job` });
      } else requeue.push(row.id);
    }
    result.failed += await failClaimed(deps, ledger, failures);
    if (requeue.length > 0) {
      await withTransaction(deps.pool, async (db) => {
        for (const id of requeue) await ledger.queueSend(db, id);
      });
      result.requeued += requeue.length;
    }
    after = rows.at(-1);
    if (!after || rows.length < PAGE) return result;
  }
}
