import { createHmac } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type pg from "pg";
import { ClientRateLimit } from "../core/client-rate-limit.ts";
import type { Dispatcher } from "../core/dispatcher.ts";
import { MESSAGES } from "../core/errors.ts";
import { loginClient } from "../ops/login-limit.ts";
import { marketExists, marketIdSchema } from "../back_in_stock/signups/model.ts";
import { ownSignup } from "../back_in_stock/signups/own-signup.ts";
import { appProxyVerifier } from "../platform/oauth/app-proxy.ts";
import type { PlatformRuntime } from "../platform/runtime.ts";

/**
 * The storefront's own endpoints, reached through the platform's app proxy: a shopper's browser
 * calls `https://<shop>/apps/<subpath>/...`, and the platform forwards the request here with the
 * query signed by the app's secret (`shop`, `logged_in_customer_id`, `path_prefix`, `timestamp`,
 * `signature`). No API key: the signature says which shop the request comes through, and that
 * the customer id is the platform's, not the shopper's word. Decision 0200.
 *
 * `POST /storefront/back_in_stock/signups`: the "notify me" form of a sold-out variant. The body
 * is the signup action's (variant_id, channel, email or phone, locale, consent, first_name, and
 * quantity and market_id: the units wanted and the shopper's market, decision 0246); the
 * customer is the signed `logged_in_customer_id`, never the body's. It runs the same action as
 * `POST /back_in_stock/signups` (its rules, its 422s, no duplicate for a repeat) and answers only
 * what a new signup answers (`{"status":"waiting"}`), whatever the list held: the shopper learns
 * neither the shop's data nor whether the address was already on the list. The one exception
 * (decision 0214): the signed-in customer signing up with their own account's contact (or none:
 * the account's is used) gets the signup's own status, and `already_subscribed: true` when they
 * already had a live signup (waiting or pending) for the variant.
 *
 * `GET /storefront/preorders/offers/{id}/remaining`: what the widget's "Only {{ remaining }} left to
 * preorder" shows (limits.display.show_remaining): the offer's total.max less the units preordered
 * so far, live (the count moves with each order, so it is not in the metafield, decision 0196);
 * null without a total limit. Only an active offer of the signed shop.
 */

export const STOREFRONT_PREFIX = "/storefront";

/** What every accepted signup answers, but the signed-in customer's own (decision 0214): a new signup's status. */
export const NEW_SIGNUP_ANSWER = { status: "waiting" } as const;

/**
 * Signups one client address may post per minute to one shop, counted in PostgreSQL and so across
 * every web process (decision 0215).
 */
export const STOREFRONT_SIGNUPS_PER_MINUTE = 20;

/** The name of the signup limit's counts (client_rate_limit_windows). */
const SIGNUP_LIMIT = "storefront-signups";

const UNSIGNED = "Request is not signed by the platform's app proxy";
const UNKNOWN_SHOP = "Unknown shop";

export interface StorefrontRouteOptions {
  pool: pg.Pool;
  dispatcher: Dispatcher;
  /** The app's secret on the platform (PLATFORM_API_SECRET): the app proxy's HMAC key. */
  secret: string;
  /**
   * The clock (ms since the epoch) the signup limit's windows are counted by (tests). Absent: the
   * database's. (Signed timestamps are checked by Shopify's library against the process clock.)
   */
  now?: (() => number) | undefined;
  /** Signups per shop and client address (default STOREFRONT_SIGNUPS_PER_MINUTE a minute, in PostgreSQL). */
  limiter?: ClientRateLimit;
  /** The platform, to read the signed-in customer's contact (decision 0214); absent: every signup is answered as anyone's. */
  platform?: () => Promise<Pick<PlatformRuntime, "clientFor">>;
}

/**
 * The app proxy's signature of a query as the platform computes it: every parameter but
 * `signature`, as `key=value` (the values of a repeated key joined by commas), sorted,
 * concatenated without a separator, HMAC-SHA256 under the app's secret, hex. The service checks
 * signatures with Shopify's library (platform/oauth/app-proxy.ts); tests sign with this.
 */
export function appProxySignature(secret: string, query: URLSearchParams): string {
  const values = new Map<string, string[]>();
  for (const [key, value] of query) if (key !== "signature") values.set(key, [...(values.get(key) ?? []), value]);
  const message = [...values].map(([key, list]) => `${key}=${list.join(",")}`).sort().join("");
  return createHmac("sha256", secret).update(message).digest("hex");
}

/**
 * Whom a shopper's request is counted against: fastify's `request.ip`, which believes
 * X-Forwarded-For only from the proxies TRUST_PROXY names (the entry just left of the last trusted
 * hop); reached directly, or from a peer TRUST_PROXY does not name, it is the socket's address and
 * the header is ignored, since whoever connects writes it (decision 0252). Behind the platform's app
 * proxy, TRUST_PROXY names that proxy (and any load balancer) so that each shopper is counted.
 */
function shopperAddress(request: FastifyRequest): string {
  return loginClient(request.ip);
}

async function shopIdOf(pool: pg.Pool, domain: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ id: string }>("select id from shops where platform_domain = $1", [domain]);
  return rows[0]?.id;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function storefrontRoutes(app: FastifyInstance, options: StorefrontRouteOptions): Promise<void> {
  const verifiedQuery = appProxyVerifier(options.secret);

  app.get<{ Params: { id: string } }>(`${STOREFRONT_PREFIX}/preorders/offers/:id/remaining`, async (request, reply) => {
    reply.header("cache-control", "no-store");
    const verified = await verifiedQuery(request.url.split("?")[1] ?? "");
    if (!verified) return reply.code(401).send({ errors: [UNSIGNED] });
    const shopId = await shopIdOf(options.pool, verified.shop);
    if (!shopId) return reply.code(404).send({ errors: [UNKNOWN_SHOP] });
    const notFound = { errors: [`Preorder offer not found: ${request.params.id}`] };
    if (!UUID.test(request.params.id)) return reply.code(404).send(notFound);
    // preorder_offer_remaining (sql/116) is also what the shop's counter metafield carries (decision 0211).
    const { rows } = await options.pool.query<{ remaining: number | null }>(
      `select preorder_offer_remaining(shop_id, id) as remaining
       from preorder_offers where shop_id = $1 and id = $2 and status = 'active' and deleted_at is null`,
      [shopId, request.params.id],
    );
    const row = rows[0];
    if (!row) return reply.code(404).send(notFound);
    return { remaining: row.remaining };
  });
  const limiter =
    options.limiter ??
    new ClientRateLimit(options.pool, { name: SIGNUP_LIMIT, secret: options.secret, limit: STOREFRONT_SIGNUPS_PER_MINUTE, windowSeconds: 60, now: options.now });

  app.post(`${STOREFRONT_PREFIX}/back_in_stock/signups`, async (request, reply) => {
    reply.header("cache-control", "no-store");
    const verified = await verifiedQuery(request.url.split("?")[1] ?? "");
    if (!verified) return reply.code(401).send({ errors: [UNSIGNED] });
    // One statement counts and answers, shared by every process; keyed by the signed shop and an
    // HMAC of the address (the row never holds the address), before the shop's own lookup.
    const wait = await limiter.hit([verified.shop, shopperAddress(request)]);
    if (wait !== undefined) return reply.code(429).header("retry-after", String(wait)).send({ errors: [MESSAGES.rateLimited] });
    const shopId = await shopIdOf(options.pool, verified.shop);
    if (!shopId) return reply.code(404).send({ errors: [UNKNOWN_SHOP] });

    const raw = typeof request.body === "string" ? request.body : "";
    let body: unknown;
    try {
      body = raw.trim() === "" ? undefined : JSON.parse(raw);
    } catch {
      return reply.code(400).send({ errors: [MESSAGES.invalidJson] });
    }
    let own = false;
    let live = false;
    if (body !== null && typeof body === "object" && !Array.isArray(body)) {
      // The customer is the platform's signed id, never what the page sent.
      const { customer_id: _ignored, ...rest } = body as Record<string, unknown>;
      body = verified.customerId ? { ...rest, customer_id: verified.customerId } : rest;
      if (verified.customerId && options.platform) {
        const mine = await ownSignup({ pool: options.pool, platform: options.platform, log: request.log }, shopId, verified.customerId, rest);
        ({ own, live } = mine);
        body = { ...mine.body, customer_id: verified.customerId };
      }
    }
    body = await withKnownMarket(options.pool, shopId, body);
    const result = await options.dispatcher.dispatch({
      method: "POST",
      path: "/back_in_stock/signups",
      token: undefined,
      verifiedShopId: shopId,
      query: {},
      body: { parsed: body },
      requestId: request.id,
    });
    if (result.status !== 202) return reply.code(result.status).send(result.body);
    // Anyone but the signed-in owner of the contact gets a new signup's answer, repeat or not (decision 0214).
    if (!own) return reply.code(202).send(NEW_SIGNUP_ANSWER);
    const signup = result.body as { status?: unknown };
    return reply.code(202).send({ status: signup.status, ...(live ? { already_subscribed: true } : {}) });
  });
}

/**
 * The page's market (the widget sends `localization.market.id`) kept only where the mirror knows
 * it: a market added on the platform since the last catalog sync would make the API refuse the
 * signup (422), and a shopper cannot change their market; they are signed up without one instead.
 * A malformed value is left for the action to refuse.
 */
async function withKnownMarket(pool: pg.Pool, shopId: string, body: unknown): Promise<unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  const { market_id: market, ...rest } = body as Record<string, unknown>;
  if (market === undefined || market === null) return body;
  const parsed = marketIdSchema.safeParse(market);
  if (!parsed.success) return body;
  return (await marketExists(pool, shopId, parsed.data)) ? body : rest;
}
