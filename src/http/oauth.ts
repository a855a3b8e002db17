import type { ServerResponse } from "node:http";
import { RequestedTokenType, type Shopify, ShopifyError } from "@shopify/shopify-api";
import type { FastifyInstance, FastifyReply } from "fastify";
import type pg from "pg";
import type { Log } from "../logger.ts";
import { OAUTH_CALLBACK_PATH } from "../platform/oauth/app.ts";
import { verifyInstallBinding } from "../platform/oauth/install-binding.ts";
import { InstallConflict, installStore } from "../platform/oauth/install.ts";
import { routedUrl } from "../platform/oauth/shop-origins.ts";
import type { PlatformRuntime } from "../platform/runtime.ts";

/**
 * The app's installation on a store, through Shopify's library (decision 0219):
 *
 * - `GET /auth?shop=<store>.myshopify.com[&bind=<token>]`: the library's OAuth begin: a signed
 *   `state` cookie and a redirect to the store's `/admin/oauth/authorize` with the app's scopes
 *   (APP_ACCESS_SCOPES). `bind`, the signed token of `shops install` (decision 0220), names the
 *   shop row the install is for; it rides to the callback in a cookie.
 * - `GET /auth/callback`: the library checks the HMAC, the `state` against its cookie, the shop
 *   host, and exchanges the code for the offline token, which is sealed into the shop row.
 * - `POST /auth/token-exchange`, `Authorization: Bearer <session token>`: an embedded app's App
 *   Bridge session token, verified by the library (signature, audience, expiry) and exchanged for
 *   an offline token of the store it names (`dest`).
 *
 * Answers name the store and the shop id, never a token; refusals say what failed, not why the
 * library thought so in detail (its messages can hold the token).
 */
export interface OAuthRouteOptions {
  pool: pg.Pool;
  platform: PlatformRuntime;
  /** The library's instance, once the service knows its own URL (APP_URL, or where it listens). */
  shopify: () => Shopify;
  /** The app's secret: install bindings are signed with it. */
  secret: string;
  log: Log;
}

/** Carries `bind` from /auth to the callback; HttpOnly, on the callback's path only. */
export const INSTALL_BINDING_COOKIE = "preorder_install_bind";

const BINDING_COOKIE_SECONDS = 600;

/** What the library's Node adapter writes a response into: collected, so the route sends it (a routed Location for the emulator). */
class CollectedResponse {
  statusCode = 200;
  statusMessage = "";
  readonly headers = new Map<string, number | string | readonly string[]>();
  body = "";
  getHeaders(): Record<string, number | string | readonly string[]> {
    return Object.fromEntries(this.headers);
  }
  setHeader(name: string, value: number | string | readonly string[]): this {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }
  write(chunk: string): boolean {
    this.body += chunk;
    return true;
  }
  end(): this {
    return this;
  }
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return decodeURIComponent(value.join("="));
  }
  return undefined;
}

function asList(value: number | string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? [...(value as readonly string[])] : [String(value)];
}

/** Adds a Set-Cookie on the raw response beside the library's (a fastify header would replace them). */
function addRawCookie(raw: ServerResponse, cookie: string): void {
  raw.setHeader("set-cookie", [...asList(raw.getHeader("set-cookie")), cookie]);
}

function refuse(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).send({ errors: [message] });
}

export async function oauthRoutes(app: FastifyInstance, options: OAuthRouteOptions): Promise<void> {
  const { log } = options;
  const secure = () => options.shopify().config.hostScheme === "https";

  app.get("/auth", async (request, reply) => {
    const shopify = options.shopify();
    const query = request.query as Record<string, unknown>;
    const shop = typeof query.shop === "string" ? shopify.utils.sanitizeShop(query.shop) : null;
    if (!shop) return refuse(reply, 400, "shop must be a store's myshopify.com domain");
    const bind = typeof query.bind === "string" ? query.bind : undefined;
    if (bind !== undefined && verifyInstallBinding(options.secret, bind, shop) === undefined) {
      return refuse(reply, 400, "The install link is not valid for this store (expired, changed or not signed by this app)");
    }
    const collected = new CollectedResponse();
    await shopify.auth.begin({
      shop,
      callbackPath: OAUTH_CALLBACK_PATH,
      isOnline: false,
      rawRequest: request.raw,
      rawResponse: collected,
    });
    const cookies = asList(collected.headers.get("set-cookie"));
    // An install without a binding clears one left by an earlier link: it must not bind this one.
    const value = bind === undefined ? "" : encodeURIComponent(bind);
    cookies.push(`${INSTALL_BINDING_COOKIE}=${value}; Path=${OAUTH_CALLBACK_PATH}; Max-Age=${bind === undefined ? 0 : BINDING_COOKIE_SECONDS}; HttpOnly; SameSite=Lax${secure() ? "; Secure" : ""}`);
    const location = collected.headers.get("location");
    void reply.code(collected.statusCode);
    if (cookies.length > 0) void reply.header("set-cookie", cookies);
    if (typeof location === "string") void reply.header("location", routedUrl(location));
    return reply.send(collected.body);
  });

  app.get(OAUTH_CALLBACK_PATH, async (request, reply) => {
    const shopify = options.shopify();
    let store: { domain: string; accessToken: string };
    try {
      const { session } = await shopify.auth.callback({ rawRequest: request.raw, rawResponse: reply.raw });
      if (!session.accessToken) throw new ShopifyError("the store answered no access token");
      store = { domain: session.shop, accessToken: session.accessToken };
    } catch (error) {
      if (!(error instanceof ShopifyError)) throw error;
      // The class says which check failed; its message can carry the shop's query, not logged.
      log.warn({ reason: error.constructor.name }, "OAuth callback refused");
      return refuse(reply, 400, "The install could not be verified: start it again from the store");
    }
    const binding = cookieValue(request.headers.cookie, INSTALL_BINDING_COOKIE);
    let boundShopId: string | undefined;
    if (binding) {
      addRawCookie(reply.raw, `${INSTALL_BINDING_COOKIE}=; Path=${OAUTH_CALLBACK_PATH}; Max-Age=0; HttpOnly; SameSite=Lax${secure() ? "; Secure" : ""}`);
      boundShopId = verifyInstallBinding(options.secret, binding, store.domain);
      if (boundShopId === undefined) return refuse(reply, 400, "The install link is not valid for this store (expired, changed or not signed by this app)");
    }
    try {
      const { shopId, created } = await installStore(options.pool, options.platform, store, boundShopId);
      log.info({ shopId, shop: store.domain, created }, "app installed on a store");
      return reply.send({ shop: store.domain, shop_id: shopId });
    } catch (error) {
      if (error instanceof InstallConflict) return refuse(reply, 409, `The install is refused: ${error.message}`);
      throw error;
    }
  });

  app.post("/auth/token-exchange", async (request, reply) => {
    const shopify = options.shopify();
    const header = request.headers.authorization ?? "";
    const sessionToken = /^Bearer ([A-Za-z0-9_.-]+)$/.exec(header)?.[1];
    if (!sessionToken) return refuse(reply, 401, "A session token is required: Authorization: Bearer <token>");
    let dest: string;
    try {
      const payload = await shopify.session.decodeSessionToken(sessionToken);
      dest = new URL(payload.dest).hostname;
    } catch {
      return refuse(reply, 401, "The session token is not valid");
    }
    const shop = shopify.utils.sanitizeShop(dest);
    if (!shop) return refuse(reply, 401, "The session token is not valid");
    let store: { domain: string; accessToken: string };
    try {
      const { session } = await shopify.auth.tokenExchange({ shop, sessionToken, requestedTokenType: RequestedTokenType.OfflineAccessToken });
      if (!session.accessToken) throw new ShopifyError("the store answered no access token");
      store = { domain: session.shop, accessToken: session.accessToken };
    } catch (error) {
      if (!(error instanceof ShopifyError)) throw error;
      log.warn({ reason: error.constructor.name, shop }, "token exchange refused");
      return refuse(reply, 401, "The store refused the token exchange");
    }
    const { shopId, created } = await installStore(options.pool, options.platform, store);
    log.info({ shopId, shop: store.domain, created }, "app installed on a store by token exchange");
    return reply.send({ shop: store.domain, shop_id: shopId });
  });
}
