import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Which shop row an install belongs to. `npm run cli -- shops install --shop X --id SHOP_ID` prints
 * `{APP_URL}/auth?shop=X&bind=<token>`: the token names the shop row and the store, until when, and
 * is signed with the app's secret (PLATFORM_API_SECRET), which only the operator holds. So nobody
 * can bind a store to someone else's shop by editing the link: a changed shop id, store or expiry
 * fails the signature. `/auth` checks it and carries it to the callback in a cookie; the callback
 * checks it again against the store the platform signed. Decision 0220.
 *
 * Token: `<shopId>.<expires, seconds since the epoch>.<hex HMAC-SHA256 of "install-bind|<shopId>|<store>|<expires>">`.
 */
export const INSTALL_BINDING_TTL_SECONDS = 7 * 24 * 3600;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function mac(secret: string, shopId: string, store: string, expires: number): string {
  return createHmac("sha256", secret).update(`install-bind|${shopId}|${store.toLowerCase()}|${expires}`).digest("hex");
}

export function signInstallBinding(secret: string, shopId: string, store: string, nowMs = Date.now()): string {
  const expires = Math.floor(nowMs / 1000) + INSTALL_BINDING_TTL_SECONDS;
  return `${shopId}.${expires}.${mac(secret, shopId, store, expires)}`;
}

/** The shop id the token binds `store` to; undefined when it is malformed, expired, for another store or not signed with `secret`. */
export function verifyInstallBinding(secret: string, token: string, store: string, nowMs = Date.now()): string | undefined {
  const [shopId = "", expiresText = "", signature = "", ...rest] = token.split(".");
  if (rest.length > 0 || !UUID.test(shopId) || !/^\d{1,12}$/.test(expiresText) || !/^[0-9a-f]{64}$/.test(signature)) return undefined;
  const expires = Number(expiresText);
  if (expires < nowMs / 1000) return undefined;
  const expected = Buffer.from(mac(secret, shopId, store, expires), "hex");
  return timingSafeEqual(expected, Buffer.from(signature, "hex")) ? shopId : undefined;
}

/** The install link the operator hands the merchant. */
export function installUrl(appUrl: string, store: string, binding?: string): string {
  const url = new URL("/auth", appUrl);
  url.searchParams.set("shop", store);
  if (binding) url.searchParams.set("bind", binding);
  return url.toString();
}
