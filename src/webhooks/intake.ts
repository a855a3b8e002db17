import type pg from "pg";
import { withTransaction } from "../core/db.ts";
import type { WebhookTopic } from "../platform/webhooks.ts";

export const WEBHOOK_TASK = "platform_webhook";

export type IntakeOutcome = "accepted" | "duplicate" | "unknown_shop";

/**
 * Records a verified delivery and queues its processing in one transaction. A webhook id seen
 * before for the shop is a redelivery: recorded once, processed once.
 */
export async function acceptWebhook(
  pool: pg.Pool,
  delivery: { shopDomain: string; topic: WebhookTopic; webhookId: string; payload: unknown },
): Promise<IntakeOutcome> {
  return withTransaction(pool, async (db) => {
    const { rows: shops } = await db.query<{ id: string }>("select id from shops where platform_domain = $1", [delivery.shopDomain]);
    const shop = shops[0];
    if (!shop) return "unknown_shop";
    const { rows } = await db.query<{ id: string }>(
      `insert into webhook_deliveries (shop_id, webhook_id, topic, payload) values ($1, $2, $3, $4)
       on conflict (shop_id, webhook_id) do nothing
       returning id`,
      [shop.id, delivery.webhookId, delivery.topic, JSON.stringify(delivery.payload)],
    );
    const inserted = rows[0];
    if (!inserted) return "duplicate";
    await db.query("select graphile_worker.add_job($1, json_build_object('delivery_id', $2::bigint), max_attempts := 10)", [
      WEBHOOK_TASK,
      inserted.id,
    ]);
    return "accepted";
  });
}
