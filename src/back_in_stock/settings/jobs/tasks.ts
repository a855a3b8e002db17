import { type AnyTaskDefinition, defineTask } from "../../../core/tasks.ts";
import { merchantRecoverTask, merchantSendTask, recoverMerchantMessages, sendMerchantMessage } from "../merchant-ledger.ts";
import { cronPayload, reportEmailTask, runReportEmail, scanMerchantAlerts, scheduleReportEmails, tickTime } from "../merchant-scans.ts";

// The merchant's alert e-mails and scheduled reports (GET/PATCH /back_in_stock/settings/alerts); thin: each calls into src/.

/** Crontab: the report e-mails due now, one job per shop, report and period. Hours are whole, so every 10 minutes sends within 10 minutes of the hour. */
const reportSchedule = defineTask({
  name: "bis_report_email_schedule",
  payload: cronPayload,
  cron: [{ match: "*/10 * * * *", options: { maxAttempts: 1, jobKey: "bis_report_email_schedule", jobKeyMode: "replace" } }],
  async run(ctx, payload) {
    const result = await scheduleReportEmails(ctx, tickTime(payload));
    if (result.queued > 0) ctx.log.info({ task: "bis_report_email_schedule", ...result }, "report e-mails queued");
    return result;
  },
});

const reportEmail = defineTask({ ...reportEmailTask, run: (ctx, p) => runReportEmail(ctx, p) });

/** Crontab: merchant alerts whose condition holds (a variant's signups at the threshold, an alert run that ended). */
const alertScan = defineTask({
  name: "bis_merchant_alert_scan",
  payload: cronPayload,
  cron: [{ match: "*/5 * * * *", options: { maxAttempts: 1, jobKey: "bis_merchant_alert_scan", jobKeyMode: "replace" } }],
  async run(ctx, payload) {
    const result = await scanMerchantAlerts(ctx, tickTime(payload));
    if (result.claimed > 0) ctx.log.info({ task: "bis_merchant_alert_scan", ...result }, "merchant alerts claimed");
    return result;
  },
});

const send = defineTask({ ...merchantSendTask, run: (ctx, p) => sendMerchantMessage(ctx, p.message_id) });

/** Crontab: merchant messages a killed worker or a dead send job left pending. */
const recover = defineTask({
  ...merchantRecoverTask,
  cron: [{ match: "*/5 * * * *", options: { maxAttempts: 1, jobKey: merchantRecoverTask.name, jobKeyMode: "replace" }, payload: { grace_seconds: 300 } }],
  async run(ctx, payload) {
    const result = await recoverMerchantMessages(ctx, payload?.grace_seconds ?? 300);
    if (result.requeued + result.failed > 0) ctx.log.info({ task: merchantRecoverTask.name, ...result }, "recovered merchant messages");
    return result;
  },
});

export const merchantAlertTasks: readonly AnyTaskDefinition[] = [reportSchedule, reportEmail, alertScan, send, recover];
