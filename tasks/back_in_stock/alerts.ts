import type { TaskList } from "graphile-worker";
import { z } from "zod";
import { runBulkNotify } from "../../src/actions/back_in_stock/signups/bulk-notify.ts";
import { ALERT_TASKS, type AlertDeps } from "../../src/back_in_stock/alerts/deps.ts";
import { claimStage, queueSend, sendLedgerRows } from "../../src/back_in_stock/alerts/ledger.ts";
import { recoverAlerts } from "../../src/back_in_stock/alerts/recovery.ts";
import { scanReminders } from "../../src/back_in_stock/alerts/reminders.ts";
import { checkInventory, runAlertBatch } from "../../src/back_in_stock/alerts/runs.ts";
import { withTransaction } from "../../src/core/db.ts";
import { jobTask } from "../../src/core/job-task.ts";

const runPayload = z.object({ shop_id: z.uuid(), variant_id: z.string().min(1), trigger: z.string().optional() });
const sendPayload = z.object({ ledger_id: z.uuid() });
const signupPayload = z.object({ signup_id: z.uuid() });
const recoverPayload = z.object({ grace_seconds: z.number().min(0).optional() }).nullish();

/** The alert pipeline's tasks (src/back_in_stock/alerts); thin: each calls into src/. */
export function alertTasks(deps: AlertDeps): TaskList {
  return {
    // One batch of a variant's alert run; the next batch is its own job, at its time.
    [ALERT_TASKS.run]: async (raw, helpers) => {
      const result = await runAlertBatch(deps, runPayload.parse(raw), { signal: helpers.abortSignal });
      deps.log.debug({ task: ALERT_TASKS.run, ...result }, "alert batch");
    },
    // One claimed message: sent, or retried with graphile-worker's backoff until its last attempt.
    [ALERT_TASKS.send]: async (raw, helpers) => {
      const { ledger_id: ledgerId } = sendPayload.parse(raw);
      await sendLedgerRows(deps, [ledgerId], { mode: "throw", lastAttempt: helpers.job.attempts >= helpers.job.max_attempts });
    },
    // Queued at signup (src/actions/back_in_stock/signups/create.ts) when the stage is on.
    [ALERT_TASKS.thankYou]: async (raw) => {
      const { signup_id: signupId } = signupPayload.parse(raw);
      await withTransaction(deps.pool, async (db) => {
        const { rows } = await db.query<{ shop_id: string }>("select shop_id from bis_signups where id = $1", [signupId]);
        const shopId = rows[0]?.shop_id;
        if (!shopId) return; // deleted since
        const [claimed] = await claimStage(db, shopId, [signupId], "signup_thank_you");
        if (claimed) await queueSend(db, claimed.id);
      });
    },
    [ALERT_TASKS.reminders]: async () => {
      const result = await scanReminders(deps);
      if (result.due > 0) deps.log.info({ task: ALERT_TASKS.reminders, ...result }, "reminder scan");
    },
    [ALERT_TASKS.inventoryCheck]: async () => {
      const result = await checkInventory(deps.pool);
      if (result.runs_requested > 0) deps.log.info({ task: ALERT_TASKS.inventoryCheck, ...result }, "inventory check");
    },
    [ALERT_TASKS.recover]: async (raw) => {
      const result = await recoverAlerts(deps, { graceSeconds: recoverPayload.parse(raw)?.grace_seconds ?? 60 });
      if (result.resent.sent + result.resent.failed + result.resent.blocked + result.runs_resumed > 0) {
        deps.log.info({ task: ALERT_TASKS.recover, ...result }, "recovered alerts");
      }
    },
    [ALERT_TASKS.bulkNotify]: jobTask(deps, (ctx) => runBulkNotify({ ...ctx, platform: deps.platform, channels: deps.channels })),
  };
}

/** The alert pipeline's crontab lines. */
export const ALERTS_CRONTAB = `
# back in stock: reminders that are due
*/5 * * * * ${ALERT_TASKS.reminders} ?max=1&jobKey=${ALERT_TASKS.reminders}
# back in stock: restocks no webhook announced (mirror kept by the catalog sync)
*/10 * * * * ${ALERT_TASKS.inventoryCheck} ?max=1&jobKey=${ALERT_TASKS.inventoryCheck}
# back in stock: messages and runs a killed worker left behind
* * * * * ${ALERT_TASKS.recover} ?max=1&jobKey=${ALERT_TASKS.recover} {grace_seconds:60}
`;
