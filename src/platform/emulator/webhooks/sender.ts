import { createHmac, randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { EmulatorLog } from "../log.ts";
import { ADMIN_API_VERSION } from "../../api-version.ts";

export interface WebhookOptions {
  /** The service's webhook base; a delivery goes to `${url}/${topic}`. */
  url: string;
  /** The app's secret: signs each body. */
  secret: string;
  /** Attempts per delivery before it is dropped (default 4). */
  maxAttempts?: number;
  /** Wait before the second attempt, doubling after (default 200 ms). */
  backoffMs?: number;
  /** Per attempt (default 5 s). */
  timeoutMs?: number;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface Delivery {
  readonly id: string;
  readonly topic: string;
  status: DeliveryStatus;
  /** Over the first delivery and every redelivery. */
  attempts: number;
  /** The last attempt's HTTP status; null when it got no answer. */
  responseStatus: number | null;
  readonly triggeredAt: string;
  /** The exact bytes signed and sent, resent as they are on redelivery. */
  readonly body: string;
}

function signBody(secret: string, body: string): string {
  return createHmac("sha256", secret).update(body, "utf8").digest("base64");
}

/**
 * Signed webhook deliveries, as the platform sends them: POST JSON with the topic, shop, a
 * webhook id (the same on redelivery), the trigger time and a base64 HMAC-SHA256 of the raw body.
 * A failed attempt is retried with doubling backoff a bounded number of times, then logged and
 * dropped. Deliveries run in the background; `settled()` waits for them.
 */
export class WebhookSender {
  readonly deliveries: Delivery[] = [];
  readonly #options: Required<WebhookOptions>;
  readonly #shopDomain: string;
  readonly #log: EmulatorLog;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #abort = new AbortController();

  constructor(options: WebhookOptions, shopDomain: string, log: EmulatorLog) {
    this.#options = { maxAttempts: 4, backoffMs: 200, timeoutMs: 5_000, ...options, url: options.url.replace(/\/+$/, "") };
    this.#shopDomain = shopDomain;
    this.#log = log;
  }

  send(topic: string, payload: unknown): Delivery {
    const delivery: Delivery = {
      id: randomUUID(),
      topic,
      status: "pending",
      attempts: 0,
      responseStatus: null,
      triggeredAt: new Date().toISOString(),
      body: JSON.stringify(payload),
    };
    this.deliveries.push(delivery);
    void this.#track(delivery);
    return delivery;
  }

  /** Sends a delivery again: same id, same body, as the platform does when it retries. */
  async redeliver(webhookId: string): Promise<Delivery> {
    const delivery = this.deliveries.find((d) => d.id === webhookId);
    if (!delivery) throw new Error(`no webhook delivery ${webhookId}`);
    delivery.status = "pending";
    await this.#track(delivery);
    return delivery;
  }

  /** Resolves when no delivery is under way (including retries still waiting). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Stops retries and waits for attempts in progress to end. */
  async close(): Promise<void> {
    this.#abort.abort();
    await this.settled();
  }

  #track(delivery: Delivery): Promise<void> {
    const run = this.#deliver(delivery).finally(() => this.#inFlight.delete(run));
    this.#inFlight.add(run);
    return run;
  }

  async #attempt(delivery: Delivery): Promise<boolean> {
    const { url, secret, timeoutMs } = this.#options;
    try {
      const response = await fetch(`${url}/${delivery.topic}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-shopify-topic": delivery.topic,
          "x-shopify-shop-domain": this.#shopDomain,
          "x-shopify-webhook-id": delivery.id,
          "x-shopify-triggered-at": delivery.triggeredAt,
          "x-shopify-api-version": ADMIN_API_VERSION,
          "x-shopify-hmac-sha256": signBody(secret, delivery.body),
        },
        body: delivery.body,
        signal: AbortSignal.any([this.#abort.signal, AbortSignal.timeout(timeoutMs)]),
      });
      delivery.responseStatus = response.status;
      await response.arrayBuffer();
      return response.ok;
    } catch (error) {
      delivery.responseStatus = null;
      this.#log.debug({ webhookId: delivery.id, topic: delivery.topic, err: error }, "emulator webhook attempt failed");
      return false;
    }
  }

  async #deliver(delivery: Delivery): Promise<void> {
    const { maxAttempts, backoffMs } = this.#options;
    for (let attempt = 1; attempt <= maxAttempts && !this.#abort.signal.aborted; attempt++) {
      delivery.attempts++;
      if (await this.#attempt(delivery)) {
        delivery.status = "delivered";
        return;
      }
      if (attempt < maxAttempts) {
        await delay(backoffMs * 2 ** (attempt - 1), undefined, { signal: this.#abort.signal }).catch(() => undefined);
      }
    }
    delivery.status = "failed";
    this.#log.warn(
      { webhookId: delivery.id, topic: delivery.topic, attempts: delivery.attempts, status: delivery.responseStatus },
      "emulator webhook dropped after its last attempt",
    );
  }
}
