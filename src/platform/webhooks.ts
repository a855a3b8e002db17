import { createHmac, timingSafeEqual } from "node:crypto";

/** Topics the service subscribes to; any other is refused. */
export const WEBHOOK_TOPICS = [
  "inventory_levels/update",
  "orders/create",
  "orders/paid",
  "orders/cancelled",
  "orders/fulfilled",
  "products/update",
] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

export function isWebhookTopic(topic: string): topic is WebhookTopic {
  return (WEBHOOK_TOPICS as readonly string[]).includes(topic);
}

export function signWebhook(secret: string, body: Buffer | string): string {
  return createHmac("sha256", secret).update(body).digest("base64");
}

/** Compares the base64 HMAC-SHA256 of the raw body in constant time. */
export function verifyWebhookSignature(secret: string, body: Buffer, signature: string | undefined): boolean {
  if (!signature) return false;
  const expected = Buffer.from(signWebhook(secret, body), "base64");
  const given = Buffer.from(signature, "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
