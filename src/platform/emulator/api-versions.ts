import { ADMIN_API_VERSION } from "../api-version.ts";

/** Shopify keeps a stable version for at least twelve months (https://shopify.dev/docs/api/usage/versioning). */
const SUPPORTED_MONTHS = 12;

function monthIndex(version: string): number {
  const [year, month] = version.split("-").map(Number);
  return (year ?? 0) * 12 + (month ?? 0);
}

/**
 * The version a request's path is answered with, as Shopify does it: a quarterly release up to
 * the newest one is served; one that is no longer supported falls forward to the oldest that
 * is; `unstable` is served as the newest. Anything else (a malformed or future version) is not
 * an endpoint: undefined, answered 404.
 */
export function servedApiVersion(path: string): string | undefined {
  if (path === "unstable") return ADMIN_API_VERSION;
  if (!/^\d{4}-(01|04|07|10)$/.test(path) || monthIndex(path) > monthIndex(ADMIN_API_VERSION)) return undefined;
  const oldest = monthIndex(ADMIN_API_VERSION) - SUPPORTED_MONTHS;
  if (monthIndex(path) >= oldest) return path;
  const year = Math.floor((oldest - 1) / 12);
  const month = oldest - year * 12;
  return `${year}-${String(month).padStart(2, "0")}`;
}
