import type { Db } from "../../core/db.ts";
import { enqueue } from "../../core/tasks.ts";
import { type AlertDeps, alertRecoverTask, sendTask } from "./deps.ts";
import { LEASE_DEAD, type SendSummary, SendContexts, addSummary, emptySummary, sendLedgerRows, sendLimit } from "./ledger.ts";
import { CHUNK_SIZE, recoverRuns } from "./runs.ts";

/**
 * RECOVERY (the `bis_alert_recover` task: every minute from the crontab, and once when a worker
 * starts). A worker killed mid-send leaves claimed ledger rows `pending` with no one to send
 * them, and its batch job locked in graphile-worker (which frees such jobs only after hours).
 * The sweep sends those rows again with the same message id (duplicates are bounded by what
 * was in flight at the kill and recognisable by that id), and resumes runs whose batch job is
 * gone. It cannot take a live sender's rows: those are leased to a connection that is still open.
 */

const PAGE = 1000;

export async function recoverAlerts(deps: AlertDeps, options: { graceSeconds?: number } = {}): Promise<{ resent: SendSummary; runs_resumed: number }> {
  const resent = emptySummary();
  const contexts = new SendContexts(deps);
  const limit = sendLimit(deps);
  let after: { created_at: Date; id: string } | undefined;
  for (;;) {
    const { rows } = await deps.pool.query<{ id: string; created_at: Date }>(
      `select l.id, l.created_at from bis_ledger l
       where l.status = 'pending' and l.created_at < now() - make_interval(secs => $1) and ${LEASE_DEAD}
         and ($2::timestamptz is null or (l.created_at, l.id) > ($2, $3::uuid))
         and not exists (select 1 from graphile_worker.jobs j where j.key = $4 || ':' || l.id and j.attempts < j.max_attempts)
       order by l.created_at, l.id
       limit $5`,
      [options.graceSeconds ?? 60, after?.created_at ?? null, after?.id ?? null, sendTask.name, PAGE],
    );
    if (rows.length === 0) break;
    for (let i = 0; i < rows.length; i += CHUNK_SIZE) {
      addSummary(resent, await sendLedgerRows(deps, rows.slice(i, i + CHUNK_SIZE).map((r) => r.id), { mode: "job" }, { contexts, limit }));
    }
    const last = rows.at(-1);
    if (!last || rows.length < PAGE) break;
    after = last;
  }
  const runs = await recoverRuns(deps.pool);
  return { resent, runs_resumed: runs };
}

/** Queues one recovery sweep now (a worker that starts: what a killed one left is picked up at once). */
export async function enqueueAlertRecovery(db: Db): Promise<void> {
  await enqueue(db, alertRecoverTask, { grace_seconds: 0 }, { jobKey: alertRecoverTask.name, maxAttempts: 3 });
}
