import { type AlertSettings, type ReportEmail, WEEKDAYS } from "./alerts.ts";

/**
 * WHEN a scheduled report e-mail is due (decision 0247). Its period is made of whole local days
 * of the settings' time zone: a daily summary covers the day before its send day, a weekly one
 * the 7 days before its send day; it is sent at `hour` of the send day (and weekday). A period is
 * due from its send time for CATCH_UP_HOURS: a worker that was down sends it late, once; a
 * period whose time is further back is not sent (the next one is).
 */

export const CATCH_UP_HOURS = 6;

export interface DuePeriod {
  /** The period's first local day, YYYY-MM-DD: the ledger's event key and the job key's tail. */
  key: string;
  /** The instants the period starts at (inclusive) and ends before (exclusive). */
  from: Date;
  to: Date;
  /** When it was to be sent. */
  sendAt: Date;
}

interface LocalTime {
  y: number;
  m: number;
  d: number;
  h: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
    formats.set(timeZone, f);
  }
  return f;
}

function parts(instant: number, timeZone: string): LocalTime & { mi: number; s: number } {
  const values: Record<string, number> = {};
  for (const p of format(timeZone).formatToParts(new Date(instant))) if (p.type !== "literal") values[p.type] = Number(p.value);
  return { y: values.year ?? 0, m: values.month ?? 0, d: values.day ?? 0, h: values.hour ?? 0, mi: values.minute ?? 0, s: values.second ?? 0 };
}

/** The zone's offset from UTC at the instant, in ms. */
function offset(instant: number, timeZone: string): number {
  const p = parts(instant, timeZone);
  return Date.UTC(p.y, p.m - 1, p.d, p.h, p.mi, p.s) - Math.floor(instant / 1000) * 1000;
}

/** The instant of a local wall time (the later reading across a DST change; a skipped hour lands an hour on). */
export function zonedInstant(local: LocalTime, timeZone: string): Date {
  const wall = Date.UTC(local.y, local.m - 1, local.d, local.h);
  const first = wall - offset(wall, timeZone);
  return new Date(wall - offset(first, timeZone));
}

/** A calendar day `days` from the local day (no time zone: plain calendar arithmetic). */
function addDays(day: LocalTime, days: number, h = 0): LocalTime {
  const t = new Date(Date.UTC(day.y, day.m - 1, day.d + days));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), h };
}

const isoDay = (day: LocalTime): string => `${String(day.y).padStart(4, "0")}-${String(day.m).padStart(2, "0")}-${String(day.d).padStart(2, "0")}`;

/** Monday 0 ... Sunday 6 of a calendar day. */
const weekdayIndex = (day: LocalTime): number => (new Date(Date.UTC(day.y, day.m - 1, day.d)).getUTCDay() + 6) % 7;

/** The latest period of the report whose send time is at or before `now` (whether or not it is still due). */
export function latestPeriod(kind: ReportEmail, settings: AlertSettings, now: Date): DuePeriod {
  const tz = settings.time_zone;
  const report = settings[kind];
  const today = parts(now.getTime(), tz);
  let sendDay: LocalTime;
  if (kind === "daily_summary") {
    sendDay = addDays(today, today.h >= report.hour ? 0 : -1);
  } else {
    const target = WEEKDAYS.indexOf((report as AlertSettings["weekly_summary"]).weekday);
    let back = (weekdayIndex(today) - target + 7) % 7;
    if (back === 0 && today.h < report.hour) back = 7;
    sendDay = addDays(today, -back);
  }
  const length = kind === "daily_summary" ? 1 : 7;
  let sendAt = zonedInstant({ ...sendDay, h: report.hour }, tz);
  // A DST change can put the local hour after now on the day it looked due: the period before.
  if (sendAt.getTime() > now.getTime()) {
    sendDay = addDays(sendDay, -length);
    sendAt = zonedInstant({ ...sendDay, h: report.hour }, tz);
  }
  const first = addDays(sendDay, -length);
  return { key: isoDay(first), from: zonedInstant(first, tz), to: zonedInstant(sendDay, tz), sendAt };
}

/** The report's period due at `now`, or undefined when it is off or its latest send time is past the catch-up window. */
export function duePeriod(kind: ReportEmail, settings: AlertSettings, now: Date): DuePeriod | undefined {
  if (!settings[kind].enabled || settings[kind].recipients.length === 0) return undefined;
  const period = latestPeriod(kind, settings, now);
  return now.getTime() - period.sendAt.getTime() < CATCH_UP_HOURS * 3_600_000 ? period : undefined;
}
