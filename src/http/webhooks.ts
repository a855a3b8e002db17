import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type pg from "pg";
import { isWebhookTopic, verifyWebhookSignature } from "../platform/webhooks.ts";
import { parseWebhookBody, payloadShopDomain } from "../webhooks/body.ts";
import { DEFAULT_WEBHOOK_MAX_AGE_SECONDS, staleDelivery } from "../webhooks/freshness.ts";
import { acceptWebhook } from "../webhooks/intake.ts";

const WEBHOOK_PREFIX = "/webhooks/platform";

export interface WebhookRouteOptions {
  pool: pg.Pool;
  /** The app's secret on the platform: the HMAC key of every delivery. */
  secret: string;
  /** WEBHOOK_MAX_AGE_SECONDS: a delivery triggered longer ago is refused. */
  maxAgeSeconds?: number;
}

const OTHER_SHOP = "Webhook payload belongs to another shop";

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A 4xx the platform is told about and the operator can find in the log. */
function refuse(request: FastifyRequest, reply: FastifyReply, status: number, error: string): FastifyReply {
  request.log.warn(
    {
      requestId: request.id,
      status,
      reason: error,
      topic: header(request.headers["x-shopify-topic"]),
      shopDomain: header(request.headers["x-shopify-shop-domain"]),
      webhookId: header(request.headers["x-shopify-webhook-id"]),
    },
    "platform webhook refused",
  );
  return reply.code(status).send({ errors: [error] });
}

/**
 * `POST /webhooks/platform/{topic}`: verifies the HMAC of the raw body in constant time, checks
 * the delivery is fresh and addressed to the shop that first delivered its payload, records it and
 * queues its work, and answers at once; the work runs in the worker. `POST /webhooks/platform`
 * takes the topic from `X-Shopify-Topic` alone: one URI for several topics, as an app's
 * configuration often subscribes the three compliance topics.
 */
export async function webhookRoutes(app: FastifyInstance, options: WebhookRouteOptions): Promise<void> {
  const maxAgeSeconds = options.maxAgeSeconds ?? DEFAULT_WEBHOOK_MAX_AGE_SECONDS;
  // The signature covers the exact bytes sent: keep them as a Buffer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));

  const receive = async (request: FastifyRequest, reply: FastifyReply, pathTopic: string | undefined) => {
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    if (!verifyWebhookSignature(options.secret, body, header(request.headers["x-shopify-hmac-sha256"]))) {
      return refuse(request, reply, 401, "Webhook signature is missing or invalid");
    }
    const declared = header(request.headers["x-shopify-topic"]);
    const topic = pathTopic ?? declared ?? "";
    if (!isWebhookTopic(topic) || (declared !== undefined && declared !== topic)) {
      return refuse(request, reply, 404, `Unknown webhook topic: ${topic}`);
    }
    const shopDomain = header(request.headers["x-shopify-shop-domain"]);
    const webhookId = header(request.headers["x-shopify-webhook-id"]);
    const triggeredAt = header(request.headers["x-shopify-triggered-at"]);
    if (!shopDomain || !webhookId || !triggeredAt) {
      return refuse(request, reply, 400, "X-Shopify-Shop-Domain, X-Shopify-Webhook-Id and X-Shopify-Triggered-At are required");
    }
    // The trigger time is not signed: it bounds how long a captured delivery is taken as it was
    // sent; the payload digest (acceptWebhook) stops one already seen coming back with a new time.
    const stale = staleDelivery(triggeredAt, maxAgeSeconds);
    if (stale) return refuse(request, reply, 400, stale);
    const parsed = parseWebhookBody(body);
    if (!parsed.ok) return refuse(request, reply, 400, parsed.error);
    const named = payloadShopDomain(parsed.payload);
    if (named !== undefined && named.toLowerCase() !== shopDomain.toLowerCase()) return refuse(request, reply, 401, OTHER_SHOP);
    const outcome = await acceptWebhook(options.pool, { shopDomain, topic, webhookId, triggeredAt, payload: parsed.payload }, { log: request.log });
    if (outcome === "unknown_shop") return refuse(request, reply, 404, `Unknown shop: ${shopDomain}`);
    if (outcome === "other_shop") return refuse(request, reply, 401, OTHER_SHOP);
    return reply.code(200).send({ status: outcome });
  };
  app.post(`${WEBHOOK_PREFIX}/*`, (request, reply) => receive(request, reply, (request.params as { "*": string })["*"]));
  app.post(WEBHOOK_PREFIX, (request, reply) => receive(request, reply, undefined));
}
