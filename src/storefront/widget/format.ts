/**
 * Dates, amounts and units in the page's locale, by the browser's Intl. A locale or currency Intl
 * refuses (a theme's odd `request.locale`) falls back to English rather than breaking the page.
 */

function withLocale<T>(locale: string, make: (locale: string) => T): T {
  try {
    return make(locale);
  } catch {
    return make("en");
  }
}

/** A delivery date as a shopper reads it: "Jan 15, 2027" in en, "15 janv. 2027" in fr (the date's own day: UTC). */
export function formatDate(iso: string, locale: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso.slice(0, 10);
  return withLocale(locale, (l) => date.toLocaleDateString(l, { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" }));
}

/** An amount in cents (as Liquid's prices) in the currency; null when the currency is unknown. */
export function formatMoney(cents: number, currency: string | null | undefined, locale: string): string | null {
  if (!currency) return null;
  try {
    return withLocale(locale, (l) => new Intl.NumberFormat(l, { style: "currency", currency }).format(cents / 100));
  } catch {
    return null;
  }
}

export type DurationUnit = "day" | "hour" | "minute" | "second";

/** A count with its unit, long ("3 days", "3 jours"). */
export function formatUnits(value: number, unit: DurationUnit, locale: string): string {
  return withLocale(locale, (l) => new Intl.NumberFormat(l, { style: "unit", unit, unitDisplay: "long" }).format(value));
}

/** The unit's short label for the value ("days", "hr", "min", "sec" in en; "j", "h", "min", "s" in fr), without the number. */
export function unitLabel(value: number, unit: DurationUnit, locale: string): string {
  const parts = withLocale(locale, (l) => new Intl.NumberFormat(l, { style: "unit", unit, unitDisplay: "short" }).formatToParts(value));
  return parts
    .filter((part) => part.type === "unit")
    .map((part) => part.value)
    .join("")
    .trim();
}
