import { randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Context } from "../context.ts";
import { signAdminQuery, verifySessionToken } from "./signing.ts";

/** The app as the platform knows it: its client credentials and the redirect URLs it may use. */
export interface OAuthAppOptions {
  clientId: string;
  clientSecret: string;
  /** The allowed redirect_uri values (shopify.app.toml's `[auth] redirect_urls`); unset: any. */
  redirectUrls?: readonly string[];
}

export interface OAuthRouteOptions {
  ctx: Context;
  app: OAuthAppOptions;
  /** The offline access token an install is issued: the one the Admin endpoint accepts. */
  accessToken: string;
  /** Called after an install changed the app's scopes (the state file is saved). */
  changed?: () => void;
}

/** How long an authorization code can be exchanged. */
const CODE_TTL_MS = 10 * 60_000;

export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";
const OFFLINE_TOKEN_TYPE = "urn:shopify:params:oauth:token-type:offline-access-token";

/** The platform's error bodies of its token endpoint (400). */
const INVALID_CODE = { error: "invalid_request", error_description: "The authorization code was not found or was already used" };
const INVALID_CLIENT = { error: "invalid_client", error_description: "Client credentials are invalid" };
const INVALID_SUBJECT = { error: "invalid_subject_token", error_description: "Token exchange cannot be performed due to an invalid subject token." };

/**
 * The platform's OAuth endpoints (decision 0219):
 *
 * - `GET /admin/oauth/authorize?client_id&scope&redirect_uri&state`: the merchant's approval, given
 *   at once here (no one to ask), then a redirect to the app's redirect_uri with `code`, `hmac`,
 *   `host`, `shop`, `state`, `timestamp`, signed as the platform signs them (signing.ts).
 * - `POST /admin/oauth/access_token` (JSON or a form): the authorization-code grant (`client_id`,
 *   `client_secret`, `code`, once) and the token-exchange grant (`grant_type`
 *   `urn:ietf:params:oauth:grant-type:token-exchange`, `subject_token` an App Bridge session
 *   token), answered `{access_token, scope}`. A code grant's scopes are granted to the installation.
 */
export async function registerOAuth(app: FastifyInstance, options: OAuthRouteOptions): Promise<void> {
  const { ctx } = options;
  const codes = new Map<string, { scopes: string[]; expiresAt: number }>();
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  const text = (reply: FastifyReply, status: number, message: string) => reply.code(status).type("text/plain; charset=utf-8").send(message);

  app.get("/admin/oauth/authorize", async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const str = (key: string) => (typeof query[key] === "string" ? query[key] : "");
    if (str("client_id") !== options.app.clientId) return text(reply, 400, "Oauth error invalid_request: The client_id is not valid");
    const redirect = str("redirect_uri");
    let target: URL;
    try {
      target = new URL(redirect);
    } catch {
      return text(reply, 400, "Oauth error invalid_request: The redirect_uri is missing or not valid");
    }
    if (options.app.redirectUrls && !options.app.redirectUrls.includes(redirect)) {
      return text(reply, 400, "Oauth error invalid_request: The redirect_uri is not whitelisted");
    }
    // A write scope grants its read scope too, as the platform grants them.
    const asked = str("scope").split(",").map((s) => s.trim()).filter(Boolean);
    const scopes = [...new Set(asked.flatMap((s) => (s.startsWith("write_") ? [s, `read_${s.slice("write_".length)}`] : [s])))];
    for (const [code, grant] of codes) if (grant.expiresAt < Date.now()) codes.delete(code);
    const code = randomBytes(16).toString("hex");
    codes.set(code, { scopes, expiresAt: Date.now() + CODE_TTL_MS });
    const storeHandle = ctx.shop.domain.split(".")[0] ?? ctx.shop.domain;
    const params: Record<string, string> = {
      code,
      host: Buffer.from(`admin.shopify.com/store/${storeHandle}`).toString("base64").replace(/=+$/, ""),
      shop: ctx.shop.domain,
      state: str("state"),
      timestamp: String(Math.floor(Date.now() / 1000)),
    };
    params.hmac = signAdminQuery(options.app.clientSecret, params);
    for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
    return reply.redirect(target.toString(), 302);
  });

  app.post("/admin/oauth/access_token", async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const str = (key: string) => (typeof body[key] === "string" ? body[key] : "");
    if (str("client_id") !== options.app.clientId || str("client_secret") !== options.app.clientSecret) return reply.code(400).send(INVALID_CLIENT);
    if (str("grant_type") === TOKEN_EXCHANGE_GRANT) {
      const claims = str("subject_token_type") === ID_TOKEN_TYPE ? verifySessionToken(str("subject_token"), options.app.clientId, options.app.clientSecret, Date.now() / 1000) : undefined;
      if (!claims || claims.dest !== `https://${ctx.shop.domain}`) return reply.code(400).send(INVALID_SUBJECT);
      if (str("requested_token_type") !== OFFLINE_TOKEN_TYPE) return reply.code(400).send({ error: "invalid_request", error_description: "Only offline access tokens are issued here" });
      return reply.send({ access_token: options.accessToken, scope: ctx.app.scopes().join(",") });
    }
    const grant = codes.get(str("code"));
    codes.delete(str("code"));
    if (!grant || grant.expiresAt < Date.now()) return reply.code(400).send(INVALID_CODE);
    // The scopes approved become the installation's; a reinstall takes none away that the merchant
    // granted since (as read_translations, granted by hand): only a revoke does.
    ctx.app.grant(grant.scopes);
    // An install after an uninstall: the token works again, as a new install's does.
    ctx.app.install();
    options.changed?.();
    return reply.send({ access_token: options.accessToken, scope: ctx.app.scopes().join(",") });
  });
}
