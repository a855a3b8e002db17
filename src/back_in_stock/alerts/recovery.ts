import type { Db } from "../../core/db.ts";
import { enqueue } from "../../core/tasks.ts";
import { type LedgerRecovery, recoverLedger } from "../../messaging/ledger/recover.ts";
import { type AlertDeps, alertRecoverTask, sendTask } from "./deps.ts";
import { backInStockLedger } from "./ledger.ts";
import { recoverRuns } from "./runs.ts";
import { recountAllReserved } from "../../account/plans.ts";

/**
 * RECOVERY (the `bis_alert_recover` task: every minute from the crontab, and once when a worker
 * starts). A worker killed mid-send leaves claimed ledger rows `pending` with no one to send
 * them, and its batch job locked in graphile-worker (which frees such jobs only after hours).
 * The sweep (src/messaging/ledger/recover.ts) queues those rows' sends again, with the same
 * message id (duplicates are bounded by what was in flight at the kill and recognisable by that
 * id), and resumes runs whose batch job is gone. It cannot take a live sender's rows: those are
 * leased to a connection that is still open. Last, the plan's `reserved` counters are recounted
 * from the pending rows (src/account/plans.ts: a row deleted while pending left its count).
 */
export async function recoverAlerts(deps: AlertDeps, options: { graceSeconds?: number } = {}): Promise<{ messages: LedgerRecovery; runs_resumed: number; quotas_recounted: number }> {
  const messages = await recoverLedger(deps, backInStockLedger(deps), { sendTask: sendTask.name, ageColumn: "created_at" }, { graceSeconds: options.graceSeconds ?? 60 });
  const runs = await recoverRuns(deps.pool);
  // After the messages: a row the sweep failed has left its reservation.
  const quotas = await recountAllReserved(deps.pool);
  return { messages, runs_resumed: runs, quotas_recounted: quotas };
}

/** Queues one recovery sweep now (a worker that starts: what a killed one left is picked up at once). */
export async function enqueueAlertRecovery(db: Db): Promise<void> {
  await enqueue(db, alertRecoverTask, { grace_seconds: 0 }, { jobKey: alertRecoverTask.name, maxAttempts: 3 });
}
