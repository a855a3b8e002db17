import { createHmac } from "node:crypto";
import type { Db } from "../../core/db.ts";
import { enqueue } from "../../core/tasks.ts";
import type { TaskContext } from "../../core/tasks.ts";
import { MAX_WEBHOOK_ATTEMPTS, developerWebhookTask } from "../notifications/task-refs.ts";
import { type WebhookTopic, loadDeveloperSettings, sealedWebhookSecret } from "./developer.ts";
import { BlockedTargetError, postToWebhookTarget } from "./webhook-target.ts";

/**
 * Order-lifecycle events for the merchant's developer webhook. An event is recorded (and its
 * delivery queued) in the transaction that applies the order change, only while the shop has an
 * endpoint and subscribes to the topic. The delivery job POSTs the JSON body signed with
 * HMAC-SHA256 under the shop's secret, and throws on anything but a 2xx so graphile-worker
 * retries it with its backoff. The secret never enters a job payload or a log. An endpoint that
 * resolves to a non-public address is refused before any request (webhook-target.ts) and the
 * event recorded failed at once (a retry would be refused alike).
 */

export const SIGNATURE_HEADER = "x-preorder-signature";
export const TOPIC_HEADER = "x-preorder-topic";
export const EVENT_ID_HEADER = "x-preorder-event-id";

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the receiver recomputes it and checks t is recent. */
function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** Records the event and queues its delivery when the shop wants it; answers the event id. */
export async function recordWebhookEvent(db: Db, shopId: string, topic: WebhookTopic, orderId: string, data: Record<string, unknown>): Promise<string | undefined> {
  const settings = await loadDeveloperSettings(db, shopId);
  if (settings.webhook.url === null || !settings.webhook.events.includes(topic)) return undefined;
  const { rows } = await db.query<{ id: string }>(
    "insert into preorder_webhook_events (shop_id, topic, order_id, payload) values ($1, $2, $3, $4) returning id",
    [shopId, topic, orderId, JSON.stringify(data)],
  );
  const id = rows[0]?.id;
  if (!id) throw new Error("webhook event insert returned no row");
  await enqueue(db, developerWebhookTask, { event_id: id }, { jobKey: `${developerWebhookTask.name}:${id}`, maxAttempts: MAX_WEBHOOK_ATTEMPTS });
  return id;
}

interface EventRow {
  id: string;
  shop_id: string;
  topic: string;
  payload: unknown;
  status: string;
  created_at: Date;
}

const DELIVERY_TIMEOUT_MS = 10_000;

/** One delivery attempt of an event. Answers the outcome; throws (after recording it) when a retry may succeed. */
export async function deliverWebhookEvent(ctx: TaskContext, eventId: string): Promise<string> {
  const { rows } = await ctx.pool.query<EventRow>("select id, shop_id, topic, payload, status, created_at from preorder_webhook_events where id = $1", [eventId]);
  const event = rows[0];
  if (!event || event.status !== "pending") return "skipped";
  const settings = await loadDeveloperSettings(ctx.pool, event.shop_id);
  const sealed = await sealedWebhookSecret(ctx.pool, event.shop_id);
  const finish = (status: string, fields: { code?: number | null; error?: string | null }) =>
    ctx.pool.query(
      `update preorder_webhook_events set status = $2, attempts = attempts + $3, last_status = coalesce($4, last_status), last_error = $5,
         delivered_at = case when $2 = 'delivered' then now() else delivered_at end
       where id = $1`,
      [eventId, status, status === "skipped" ? 0 : 1, fields.code ?? null, fields.error ?? null],
    );
  if (settings.webhook.url === null || sealed === null) {
    await finish("skipped", { error: settings.webhook.url === null ? "no webhook endpoint" : "no webhook secret" });
    return "skipped";
  }
  const body = JSON.stringify({ id: event.id, topic: event.topic, created_at: event.created_at.toISOString(), data: event.payload });
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = webhookSignature(ctx.platform.secrets.open(sealed), timestamp, body);
  let failure: { code: number | null; error: string };
  try {
    const response = await postToWebhookTarget(settings.webhook.url, {
      headers: { "content-type": "application/json", [SIGNATURE_HEADER]: signature, [TOPIC_HEADER]: event.topic, [EVENT_ID_HEADER]: event.id },
      body,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      allowPrivate: ctx.config.DEVELOPER_WEBHOOK_ALLOW_PRIVATE_TARGETS,
    });
    if (response.status >= 200 && response.status < 300) {
      await finish("delivered", { code: response.status });
      return "delivered";
    }
    failure = { code: response.status, error: `the endpoint answered ${response.status}` };
  } catch (error) {
    if (error instanceof BlockedTargetError) {
      // Not a public address: no request was made, and a retry would be refused alike.
      ctx.log.warn({ eventId, address: error.address, reason: error.reason }, "developer webhook refused: the endpoint is not a public address");
      await finish("failed", { error: error.message });
      return "failed";
    }
    failure = { code: null, error: error instanceof Error ? error.message : String(error) };
  }
  const last = ctx.attempt >= ctx.maxAttempts;
  await finish(last ? "failed" : "pending", failure);
  throw new Error(`webhook event ${eventId}: ${failure.error}`);
}
