import { createHmac } from "node:crypto";

/**
 * The platform's app proxy signature: every query parameter but `signature`, as `key=value` (the
 * values of a repeated key joined by commas), sorted, concatenated without a separator,
 * HMAC-SHA256 under the app's API secret, hex. (The platform's side; the service verifies it in
 * src/http/storefront.ts.)
 */
export function signProxyQuery(secret: string, query: URLSearchParams): string {
  const values = new Map<string, string[]>();
  for (const [key, value] of query) if (key !== "signature") values.set(key, [...(values.get(key) ?? []), value]);
  const message = [...values].map(([key, list]) => `${key}=${list.join(",")}`).sort().join("");
  return createHmac("sha256", secret).update(message).digest("hex");
}
