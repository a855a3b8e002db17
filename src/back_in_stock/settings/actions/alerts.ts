import { documentActions } from "../../../core/settings-document.ts";
import { CATCH_UP_HOURS } from "../alert-schedule.ts";
import { DEFAULT_ALERT_SETTINGS, MAX_RECIPIENTS, alertSettingsDocument, checkAlertSettings } from "../alerts.ts";

const d = DEFAULT_ALERT_SETTINGS;

const FIELDS = `time_zone (IANA name, default "${d.time_zone}": the reports' hours, weekdays and periods); \
merchant_alerts.recipients (up to ${MAX_RECIPIENTS} e-mail addresses), merchant_alerts.signup_threshold.enabled and .threshold (default ${String(d.merchant_alerts.signup_threshold.enabled)}, ${d.merchant_alerts.signup_threshold.threshold}: an e-mail when a variant's waiting signups reach the threshold, once per variant until its next restock alert run), \
merchant_alerts.alert_run_finished.enabled (default ${String(d.merchant_alerts.alert_run_finished.enabled)}: an e-mail when a variant's restock alert run completes or stops); \
daily_summary { enabled, recipients, hour } (the previous day's summary, sent at hour 0-23, default ${d.daily_summary.hour}); \
weekly_summary { enabled, recipients, weekday, hour } (the 7 days before the send day, default ${d.weekly_summary.weekday} at ${d.weekly_summary.hour}); \
weekly_csv { enabled, recipients, report, weekday, hour } (one back-in-stock report of the 7 days before the send day as a CSV attachment, report default ${d.weekly_csv.report}). Every e-mail is off by default; an enabled one needs at least one recipient`;

const NOTES = [
  "The worker's crontab sends the reports: each period once per recipient, at its hour or, after an outage, up to " +
    `${CATCH_UP_HOURS} hours late; a period missed for longer is not sent. Merchant alerts are checked every 5 minutes.`,
  "Messages are plain-text e-mails from the service's sender (EMAIL_FROM); a failed one is retried for SEND_RETRY_HOURS and then failed with its reason.",
  "The figures are read when the e-mail is sent, as GET /back_in_stock/reports/summary and POST /back_in_stock/reports/export give them for the period.",
];

export const [getBackInStockAlertSettings, patchBackInStockAlertSettings] = documentActions(alertSettingsDocument, {
  name: "back_in_stock.settings.alerts",
  path: "/back_in_stock/settings/alerts",
  get: {
    aliases: ["show back in stock merchant alerts", "which back in stock report e-mails are scheduled", "who gets the back in stock daily summary"],
    description: `Back-in-stock alert settings, complete (what the merchant set over the defaults): the merchant's own e-mails, alerts and scheduled reports. ${FIELDS}.`,
    notes: NOTES,
  },
  update: {
    aliases: ["e-mail me a daily back in stock summary", "schedule a weekly back in stock csv report", "alert me when many customers wait for a variant", "change back in stock report recipients"],
    description: `Changes the back-in-stock alert settings (deep partial: only the keys sent change; a list is replaced whole; null is refused). The merged result is validated as a whole and nothing is saved if any field is invalid (422, one message per field: an address that is not one, more than ${MAX_RECIPIENTS} recipients, a repeated address, an enabled e-mail without recipients, an unknown time zone). Answers the complete settings. ${FIELDS}.`,
    notes: NOTES,
  },
  check: () => (merged) => checkAlertSettings(merged),
});
