import { createHmac, timingSafeEqual } from "node:crypto";

/** Topics the service subscribes to; any other is refused. */
export const WEBHOOK_TOPICS = [
  "inventory_levels/update",
  "orders/create",
  "orders/paid",
  "orders/cancelled",
  "orders/fulfilled",
  "products/update",
  "app/uninstalled",
  // The three mandatory compliance topics (decision 0223): sent to the app's compliance URI.
  "customers/data_request",
  "customers/redact",
  "shop/redact",
] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

export function isWebhookTopic(topic: string): topic is WebhookTopic {
  return (WEBHOOK_TOPICS as readonly string[]).includes(topic);
}

export function signWebhook(secret: string, body: Buffer | string): string {
  return createHmac("sha256", secret).update(body).digest("base64");
}

/** The base64 of an HMAC-SHA256: 32 bytes, 44 characters with one padding `=`. */
const SIGNATURE_LENGTH = 44;

/**
 * Compares the base64 HMAC-SHA256 of the raw body in constant time. Only the canonical encoding
 * is accepted: Node's base64 decoder skips what it cannot read (trailing garbage, missing
 * padding, the URL-safe alphabet), so a decoded comparison alone accepts many spellings of one
 * signature.
 */
export function verifyWebhookSignature(secret: string, body: Buffer, signature: string | undefined): boolean {
  if (signature?.length !== SIGNATURE_LENGTH) return false;
  const given = Buffer.from(signature, "base64");
  if (given.toString("base64") !== signature) return false;
  const expected = Buffer.from(signWebhook(secret, body), "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
