import { z } from "zod";
import type { Db } from "../../core/db.ts";
import type { Issue } from "../../core/errors.ts";
import { defineDocument } from "../../core/settings-document.ts";
import { REPORTS } from "../reports/report-queries.ts";

/**
 * The merchant's own back-in-stock e-mails (GET/PATCH /back_in_stock/settings/alerts, decision
 * 0247): merchant alerts (a variant's waiting signups reach a threshold; a restock alert run
 * ends) and scheduled report e-mails (a daily summary, a weekly summary, a weekly CSV), each with
 * its recipients. One settings document (bis_settings.alerts) over DEFAULT_ALERT_SETTINGS; the
 * worker's crontab reads it (alert-schedule.ts, merchant-ledger.ts).
 */

/** Addresses per list: enough for a team, few enough that a report is never a mailing. */
export const MAX_RECIPIENTS = 10;

export const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const REPORT_EMAILS = ["daily_summary", "weekly_summary", "weekly_csv"] as const;
export type ReportEmail = (typeof REPORT_EMAILS)[number];
export const MERCHANT_ALERTS = ["signup_threshold", "alert_run_finished"] as const;
export type MerchantAlert = (typeof MERCHANT_ALERTS)[number];
export type MerchantMessageKind = ReportEmail | MerchantAlert;

/** Whether `name` is a time zone this runtime knows (IANA names, e.g. Europe/Paris; UTC). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const recipients = z
  .array(z.email().max(254))
  .max(MAX_RECIPIENTS)
  .describe(`E-mail addresses (at most ${MAX_RECIPIENTS}, no repeats); at least one while enabled`);
const hour = z.int().min(0).max(23).describe("Hour of the day it is sent at, 0-23, in time_zone");
const weekday = z.enum(WEEKDAYS).describe("Day of the week it is sent on, in time_zone");

export const alertSettingsSchema = z.strictObject({
  time_zone: z
    .string()
    .max(64)
    .refine(isTimeZone, { message: "must be an IANA time zone name, e.g. Europe/Paris or UTC" })
    .describe("The time zone of the reports' hours, weekdays and periods (an IANA name; the shop record carries none, so the default is UTC)"),
  merchant_alerts: z.strictObject({
    recipients,
    signup_threshold: z.strictObject({
      enabled: z.boolean(),
      threshold: z.int().min(1).max(100_000).describe("An e-mail when a variant's waiting signups reach this many (again after each restock alert run)"),
    }),
    alert_run_finished: z.strictObject({
      enabled: z.boolean().describe("An e-mail when a restock alert run of a variant ends: completed, or stopped (out of stock, stage switched off)"),
    }),
  }),
  daily_summary: z.strictObject({
    enabled: z.boolean().describe("The back-in-stock summary of the previous day (time_zone's midnight to midnight)"),
    recipients,
    hour,
  }),
  weekly_summary: z.strictObject({
    enabled: z.boolean().describe("The back-in-stock summary of the 7 days before the send day"),
    recipients,
    weekday,
    hour,
  }),
  weekly_csv: z.strictObject({
    enabled: z.boolean().describe("A back-in-stock report of the 7 days before the send day, as a CSV attachment"),
    recipients,
    report: z.enum(REPORTS).describe("Which report the CSV holds (as POST /back_in_stock/reports/export makes it)"),
    weekday,
    hour,
  }),
});

export type AlertSettings = z.output<typeof alertSettingsSchema>;

export const DEFAULT_ALERT_SETTINGS: AlertSettings = {
  time_zone: "UTC",
  merchant_alerts: {
    recipients: [],
    signup_threshold: { enabled: false, threshold: 25 },
    alert_run_finished: { enabled: false },
  },
  daily_summary: { enabled: false, recipients: [], hour: 8 },
  weekly_summary: { enabled: false, recipients: [], weekday: "monday", hour: 8 },
  weekly_csv: { enabled: false, recipients: [], report: "products_in_demand", weekday: "monday", hour: 8 },
};

export const alertSettingsDocument = defineDocument({
  table: "bis_settings",
  column: "alerts",
  label: "back-in-stock alert settings",
  schema: alertSettingsSchema,
  defaults: DEFAULT_ALERT_SETTINGS,
});

/** The recipient lists of the document, by the path a 422 names them with. */
function recipientLists(s: AlertSettings): { path: string; list: readonly string[]; enabled: boolean }[] {
  const alertsOn = s.merchant_alerts.signup_threshold.enabled || s.merchant_alerts.alert_run_finished.enabled;
  return [
    { path: "merchant_alerts.recipients", list: s.merchant_alerts.recipients, enabled: alertsOn },
    ...REPORT_EMAILS.map((kind) => ({ path: `${kind}.recipients`, list: s[kind].recipients, enabled: s[kind].enabled })),
  ];
}

/** Rules across fields: an enabled e-mail needs a recipient; a list repeats no address (case aside). */
export function checkAlertSettings(s: AlertSettings): Issue[] {
  const issues: Issue[] = [];
  for (const { path, list, enabled } of recipientLists(s)) {
    if (enabled && list.length === 0) issues.push({ path, message: "must contain at least 1 item while the e-mail is enabled" });
    const seen = new Set<string>();
    list.forEach((address, i) => {
      const folded = address.toLowerCase();
      if (seen.has(folded)) issues.push({ path: `${path}.${i}`, message: "is already in the list" });
      seen.add(folded);
    });
  }
  return issues;
}

export function loadAlertSettings(db: Db, shopId: string): Promise<AlertSettings> {
  return alertSettingsDocument.load(db, shopId);
}

/** Whether the kind of message is on now (a row claimed before it was switched off is refused at its send). */
export function kindEnabled(s: AlertSettings, kind: MerchantMessageKind): boolean {
  return kind === "signup_threshold" || kind === "alert_run_finished" ? s.merchant_alerts[kind].enabled : s[kind].enabled;
}

/** The recipients of the kind of message. */
export function kindRecipients(s: AlertSettings, kind: MerchantMessageKind): readonly string[] {
  return kind === "signup_threshold" || kind === "alert_run_finished" ? s.merchant_alerts.recipients : s[kind].recipients;
}
