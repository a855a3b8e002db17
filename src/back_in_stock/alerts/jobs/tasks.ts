import { z } from "zod";
import { bulkNotifyJobRun } from "../../signups/jobs/bulk-notify.ts";
import { alertRecoverTask, alertRunTask, restockBurstTask, sendTask, thankYouTask } from "../deps.ts";
import { claimStage, queueSend, sendLedgerRows } from "../ledger.ts";
import { recoverAlerts } from "../recovery.ts";
import { scanReminders } from "../reminders.ts";
import { checkInventory, runAlertBatch, runRestockBurst } from "../runs.ts";
import { withTransaction } from "../../../core/db.ts";
import { type AnyTaskDefinition, defineTask } from "../../../core/tasks.ts";
import { sendAttemptsFor } from "../../../messaging/retry.ts";
import { isLastAttempt } from "../../../messaging/ledger/outcome.ts";

// The alert pipeline's tasks (src/back_in_stock/alerts); thin: each calls into src/.

// One batch of a variant's alert run; the next batch is its own job, at its time.
const alertRun = defineTask({
  ...alertRunTask,
  async run(ctx, payload) {
    const result = await runAlertBatch(ctx, payload, { signal: ctx.signal });
    ctx.log.debug({ task: alertRunTask.name, ...result }, "alert batch");
  },
});

// The first message of every variant a restock just opened, at once (ahead of the runs' batches).
const restockBurst = defineTask({
  ...restockBurstTask,
  async run(ctx, { shop_id: shopId }) {
    const result = await runRestockBurst(ctx, shopId);
    ctx.log.debug({ task: restockBurstTask.name, variants: result.variants, ...result.sent }, "restock burst");
  },
});

// One claimed message: sent, or retried with graphile-worker's backoff until its last attempt
// (SEND_RETRY_HOURS), then failed with the reason.
const send = defineTask({
  ...sendTask,
  async run(ctx, { ledger_id: ledgerId }) {
    await sendLedgerRows(ctx, [ledgerId], { mode: "throw", lastAttempt: isLastAttempt(ctx, ctx.config.SEND_RETRY_HOURS) });
  },
});

// Queued at signup (src/back_in_stock/signups/actions/create.ts) when the stage is on.
const thankYou = defineTask({
  ...thankYouTask,
  async run(ctx, { signup_id: signupId }) {
    await withTransaction(ctx.pool, async (db) => {
      const { rows } = await db.query<{ shop_id: string }>("select shop_id from bis_signups where id = $1", [signupId]);
      const shopId = rows[0]?.shop_id;
      if (!shopId) return; // deleted since
      const [claimed] = await claimStage(db, shopId, [signupId], "signup_thank_you");
      if (claimed) await queueSend(db, claimed.id, { maxAttempts: sendAttemptsFor(ctx.config.SEND_RETRY_HOURS) });
    });
  },
});

/** Crontab: reminders that are due. */
const reminderScan = defineTask({
  name: "bis_reminder_scan",
  payload: z.unknown(),
  cron: [{ match: "*/5 * * * *", options: { maxAttempts: 1, jobKey: "bis_reminder_scan", jobKeyMode: "replace" } }],
  async run(ctx) {
    const result = await scanReminders(ctx);
    if (result.due > 0) ctx.log.info({ task: reminderScan.name, ...result }, "reminder scan");
  },
});

/** Crontab: restocks no webhook announced (mirror kept by the catalog sync). */
const inventoryCheck = defineTask({
  name: "bis_inventory_check",
  payload: z.unknown(),
  cron: [{ match: "*/10 * * * *", options: { maxAttempts: 1, jobKey: "bis_inventory_check", jobKeyMode: "replace" } }],
  async run(ctx) {
    const result = await checkInventory(ctx.pool);
    if (result.runs_requested > 0) ctx.log.info({ task: inventoryCheck.name, ...result }, "inventory check");
  },
});

/** Crontab: messages and runs a killed worker left behind. */
const recover = defineTask({
  ...alertRecoverTask,
  cron: [{ match: "* * * * *", options: { maxAttempts: 1, jobKey: alertRecoverTask.name, jobKeyMode: "replace" }, payload: { grace_seconds: 60 } }],
  async run(ctx, payload) {
    const result = await recoverAlerts(ctx, { graceSeconds: payload?.grace_seconds ?? 60 });
    if (result.messages.requeued + result.messages.failed + result.runs_resumed > 0) {
      ctx.log.info({ task: alertRecoverTask.name, ...result }, "recovered alerts");
    }
  },
});

export const alertTasks: readonly AnyTaskDefinition[] = [alertRun, restockBurst, send, thankYou, reminderScan, inventoryCheck, recover, bulkNotifyJobRun];
