import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * How the platform signs what it sends the app through a browser (the OAuth redirect to the
 * app's redirect_uri): every query parameter but `hmac`, sorted by name, form-encoded (spaces as
 * %20) and joined with `&`, HMAC-SHA256 under the app's client secret, hex. (The platform's side;
 * the service checks it with Shopify's library.)
 */
export function signAdminQuery(secret: string, params: Record<string, string>): string {
  const sorted = new URLSearchParams(Object.entries(params).filter(([key]) => key !== "hmac").sort(([a], [b]) => a.localeCompare(b)));
  return createHmac("sha256", secret).update(sorted.toString().replace(/\+/g, "%20")).digest("hex");
}

/** The claims of an App Bridge session token (an HS256 JWT signed with the client secret), or undefined when its signature, audience or time is wrong. */
export function verifySessionToken(token: string, clientId: string, clientSecret: string, nowSeconds: number): Record<string, unknown> | undefined {
  const [header = "", payload = "", signature = "", ...rest] = token.split(".");
  if (rest.length > 0) return undefined;
  const expected = createHmac("sha256", clientSecret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let claims: Record<string, unknown>;
  try {
    const head = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as { alg?: unknown };
    if (head.alg !== "HS256") return undefined;
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (claims.aud !== clientId) return undefined;
  if (typeof claims.exp !== "number" || claims.exp < nowSeconds) return undefined;
  if (typeof claims.nbf === "number" && claims.nbf > nowSeconds + 10) return undefined;
  return claims;
}

/** An App Bridge session token as the platform issues one to the app's page in the admin (tests, the emulator's own use). */
export function issueSessionToken(clientId: string, clientSecret: string, shopDomain: string, nowSeconds: number, userId = "1"): string {
  const header = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");
  const claims = {
    iss: `https://${shopDomain}/admin`,
    dest: `https://${shopDomain}`,
    aud: clientId,
    sub: userId,
    exp: nowSeconds + 60,
    nbf: nowSeconds,
    iat: nowSeconds,
    jti: `${nowSeconds}-${Math.random().toString(36).slice(2)}`,
    sid: `session-${userId}`,
  };
  const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
  const signature = createHmac("sha256", clientSecret).update(`${header}.${payload}`).digest("base64url");
  return `${header}.${payload}.${signature}`;
}
