import type pg from "pg";
import { z } from "zod";
import { type Db, withTransaction } from "../core/db.ts";
import { declareTask, enqueue } from "../core/tasks.ts";
import type { WebhookTopic } from "../platform/webhooks.ts";
import { applyDelivery } from "./process.ts";

/** Applies a recorded delivery (its run: tasks/platform_webhook.ts); retried with backoff unless its payload can never be applied. */
export const webhookTask = declareTask({ name: "platform_webhook", payload: z.object({ delivery_id: z.number().int() }) });

export type IntakeOutcome = "accepted" | "duplicate" | "unknown_shop" | "other_shop";

/**
 * Topics applied in the intake's own transaction: an inventory level is a few statements, and a
 * restock's first alert should not wait for a worker to pick up a job first. The delivery is
 * recorded either way; one that fails to apply here (a payload it cannot take, a deadlock) is left
 * to the durable job, which retries it or fails it with the reason.
 */
const APPLIED_AT_INTAKE: ReadonlySet<WebhookTopic> = new Set(["inventory_levels/update"]);

async function appliedAtIntake(db: Db, shopId: string, deliveryId: number, delivery: { topic: WebhookTopic; payload: unknown }): Promise<boolean> {
  await db.query("savepoint apply_at_intake");
  try {
    await applyDelivery(db, shopId, delivery.topic, delivery.payload);
    await db.query("update webhook_deliveries set processed_at = now() where id = $1", [deliveryId]);
    await db.query("release savepoint apply_at_intake");
    return true;
  } catch {
    await db.query("rollback to savepoint apply_at_intake");
    return false;
  }
}

/**
 * Records a verified delivery and queues its processing in one transaction. A webhook id seen
 * before for the shop is a redelivery: recorded once, processed once.
 *
 * The signature covers the body only, not the shop or webhook id headers, so a signed body could
 * be sent again under a new id or another shop's domain. Every payload is therefore remembered by
 * its digest (jsonb's canonical text): one another shop delivered is refused (`other_shop`), one
 * this shop delivered under the same topic is a duplicate whatever its webhook id. The same
 * payload under another topic of the same shop is a distinct event (an order created already paid
 * sends orders/create and orders/paid alike).
 */
export async function acceptWebhook(
  pool: pg.Pool,
  delivery: { shopDomain: string; topic: WebhookTopic; webhookId: string; payload: unknown },
): Promise<IntakeOutcome> {
  return withTransaction(pool, async (db) => {
    const { rows: shops } = await db.query<{ id: string }>("select id from shops where platform_domain = $1", [delivery.shopDomain]);
    const shop = shops[0];
    if (!shop) return "unknown_shop";
    const payload = JSON.stringify(delivery.payload);
    const { rows: digests } = await db.query<{ digest: Buffer }>("select sha256(convert_to($1::jsonb::text, 'UTF8')) as digest", [payload]);
    const digest = digests[0]?.digest;
    if (!digest) throw new Error("sha256 returned no row");
    // Deliveries of one payload take turns: two shops racing cannot both claim it.
    await db.query("select pg_advisory_xact_lock(hashtext('webhook_payload:' || encode($1::bytea, 'hex')))", [digest]);
    const { rows: seen } = await db.query<{ shop_id: string; topic: string }>(
      "select shop_id, topic from webhook_deliveries where payload_sha256 = $1",
      [digest],
    );
    if (seen.some((row) => row.shop_id !== shop.id)) return "other_shop";
    if (seen.some((row) => row.topic === delivery.topic)) return "duplicate";
    const { rows } = await db.query<{ id: string }>(
      `insert into webhook_deliveries (shop_id, webhook_id, topic, payload, payload_sha256) values ($1, $2, $3, $4, $5)
       on conflict (shop_id, webhook_id) do nothing
       returning id`,
      [shop.id, delivery.webhookId, delivery.topic, payload, digest],
    );
    const inserted = rows[0];
    if (!inserted) return "duplicate";
    if (APPLIED_AT_INTAKE.has(delivery.topic) && (await appliedAtIntake(db, shop.id, Number(inserted.id), delivery))) return "accepted";
    // bigint arrives as a string; the ids stay far below 2^53.
    await enqueue(db, webhookTask, { delivery_id: Number(inserted.id) }, { maxAttempts: 10 });
    return "accepted";
  });
}
