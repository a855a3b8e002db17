import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The signed unsubscribe link put in every back-in-stock message:
 * `{publicBaseUrl}/back_in_stock/unsubscribe?signup=<id>&sig=<hmac>`, served without an API key
 * by src/http/unsubscribe.ts. The signature is HMAC-SHA256 over a purpose label and the signup
 * id, keyed with the service's secret (the platform API secret, PLATFORM_API_SECRET), base64url.
 * The label keeps these signatures from being valid for anything else signed with that secret.
 */

export const UNSUBSCRIBE_PATH = "/back_in_stock/unsubscribe";
const PURPOSE = "back-in-stock unsubscribe v1\n";

function unsubscribeSignature(secret: string, signupId: string): string {
  return createHmac("sha256", secret).update(PURPOSE).update(signupId.toLowerCase()).digest("base64url");
}

/** The link for a signup; `publicBaseUrl` is the service's public origin (a trailing slash is fine). */
export function unsubscribeUrl(publicBaseUrl: string, secret: string, signupId: string): string {
  const query = new URLSearchParams({ signup: signupId, sig: unsubscribeSignature(secret, signupId) });
  return `${publicBaseUrl.replace(/\/+$/, "")}${UNSUBSCRIBE_PATH}?${query.toString()}`;
}

/** Whether `sig` is this signup's signature; compared in constant time. */
export function verifyUnsubscribe(secret: string, signupId: string, sig: string | undefined): boolean {
  if (!sig) return false;
  const expected = Buffer.from(unsubscribeSignature(secret, signupId));
  const given = Buffer.from(sig);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
