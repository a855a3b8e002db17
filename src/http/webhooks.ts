import type { FastifyInstance } from "fastify";
import type pg from "pg";
import { isWebhookTopic, verifyWebhookSignature } from "../platform/webhooks.ts";
import { acceptWebhook } from "../webhooks/intake.ts";

export const WEBHOOK_PREFIX = "/webhooks/platform";

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * `POST /webhooks/platform/{topic}`: verifies the HMAC of the raw body in constant time, records
 * the delivery and queues its work, and answers at once; the work runs in the worker.
 */
export async function webhookRoutes(app: FastifyInstance, options: { pool: pg.Pool; secret: string }): Promise<void> {
  // The signature covers the exact bytes sent: keep them as a Buffer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));

  app.post(`${WEBHOOK_PREFIX}/*`, async (request, reply) => {
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    if (!verifyWebhookSignature(options.secret, body, header(request.headers["x-platform-hmac-sha256"]))) {
      return reply.code(401).send({ errors: ["Webhook signature is missing or invalid"] });
    }
    const topic = (request.params as { "*": string })["*"];
    const declared = header(request.headers["x-platform-topic"]);
    if (!isWebhookTopic(topic) || (declared !== undefined && declared !== topic)) {
      return reply.code(404).send({ errors: [`Unknown webhook topic: ${topic}`] });
    }
    const shopDomain = header(request.headers["x-platform-shop-domain"]);
    const webhookId = header(request.headers["x-platform-webhook-id"]);
    if (!shopDomain || !webhookId) {
      return reply.code(400).send({ errors: ["X-Platform-Shop-Domain and X-Platform-Webhook-Id are required"] });
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString("utf8"));
    } catch {
      return reply.code(400).send({ errors: ["Request body is not valid JSON"] });
    }
    const outcome = await acceptWebhook(options.pool, { shopDomain, topic, webhookId, payload });
    if (outcome === "unknown_shop") return reply.code(404).send({ errors: [`Unknown shop: ${shopDomain}`] });
    return reply.code(200).send({ status: outcome });
  });
}
