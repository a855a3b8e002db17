import { randomUUID } from "node:crypto";
import type pg from "pg";
import { expect } from "vitest";
import { signWebhook } from "../../src/platform/webhooks.ts";
import { TEST_WEBHOOK_SECRET } from "./platform.ts";
import { waitFor } from "./wait.ts";

/** A platform webhook delivery as the platform sends it: body, topic and signed headers. */
export interface Delivery {
  topic: string;
  body: string | Buffer;
  headers: Record<string, string>;
}

/** Signed with the tests' webhook secret, triggered now, with a new webhook id; `overrides` replace headers. */
export function signedDelivery(topic: string, payload: unknown, shopDomain: string, overrides: Record<string, string> = {}): Delivery {
  const body = JSON.stringify(payload);
  return {
    topic,
    body,
    headers: {
      "content-type": "application/json",
      "x-shopify-topic": topic,
      "x-shopify-shop-domain": shopDomain,
      "x-shopify-webhook-id": randomUUID(),
      "x-shopify-triggered-at": new Date().toISOString(),
      "x-shopify-hmac-sha256": signWebhook(TEST_WEBHOOK_SECRET, body),
      ...overrides,
    },
  };
}

export async function postDelivery(origin: string, d: Delivery): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${origin}/webhooks/platform/${d.topic}`, { method: "POST", headers: d.headers, body: d.body });
  return { status: response.status, body: await response.json() };
}

/** Sends a signed delivery and expects it accepted (200). */
export async function deliverWebhook(origin: string, topic: string, payload: unknown, shopDomain: string): Promise<void> {
  const { status } = await postDelivery(origin, signedDelivery(topic, payload, shopDomain));
  expect(status).toBe(200);
}

/** Waits until the worker has processed every recorded delivery (of one shop, when given). */
export async function webhooksProcessed(pool: pg.Pool, shopId?: string): Promise<void> {
  await waitFor("every webhook delivery processed", async () => {
    const { rows } = await pool.query<{ n: number }>(
      "select count(*)::int as n from webhook_deliveries where processed_at is null and ($1::uuid is null or shop_id = $1)",
      [shopId ?? null],
    );
    return rows[0]?.n === 0 ? true : undefined;
  });
}
