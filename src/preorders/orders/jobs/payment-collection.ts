import { z } from "zod";
import { withTransaction } from "../../../core/db.ts";
import { type JobRunContext, defineJob } from "../../../core/job-task.ts";
import { declareJob } from "../../../core/jobs.ts";
import { chunk } from "../../../platform/operations/chunk.ts";
import { getPaymentCollectionUrl } from "../../../platform/operations/orders.ts";
import { claimNotifications } from "../../notifications/ledger.ts";
import { findOrders } from "../model.ts";

/**
 * bulk_send_payment_collection_url (decision 0207): for each order that still owes a balance, the
 * platform's link where the customer pays it (the order's
 * `paymentCollectionDetails.additionalPaymentCollectionUrl`) is sent in a `payment_request`
 * notification on the channels that are on, like every preorder message (ledger, retries, the
 * shop's identity and layout).
 *
 * The notification's event key is this job's id: a retried attempt finds what it already claimed
 * and sends nothing twice; a new submission is a new request and sends again.
 */
export const sendPaymentCollectionUrlJob = declareJob({ name: "preorders_orders_send_payment_collection_url", payload: z.object({ order_ids: z.array(z.string()) }) });

/** Orders asked of the platform at once; the client paces them by cost. */
const CONCURRENCY = 4;

interface Outcome {
  order_id: string;
  outcome: "sent" | "skipped" | "refused";
  reason: string | null;
  /** the channels the link went out on (queued for sending) */
  channels?: string[];
}

async function runSendPaymentCollectionUrl(ctx: JobRunContext<{ order_ids: string[] }>): Promise<Record<string, unknown>> {
  const { shopId, payload: { order_ids: ids } } = ctx;
  const client = await ctx.platform.clientFor(ctx.pool, shopId);
  const options = ctx.signal ? { signal: ctx.signal } : undefined;
  const outcomes: Outcome[] = [];
  for (const batch of chunk(ids, 200)) {
    const orders = await findOrders(ctx.pool, shopId, batch, false);
    const sendOne = async (id: string): Promise<Outcome> => {
      const order = orders.get(id);
      if (!order) return { order_id: id, outcome: "refused", reason: `Preorder order not found: ${id}` };
      if (order.status === "cancelled" || order.status === "refunded") return { order_id: id, outcome: "refused", reason: `Preorder order ${id} is ${order.status}` };
      if (Number(order.total_outstanding) <= 0) return { order_id: id, outcome: "skipped", reason: "no balance is owed" };
      const found = await getPaymentCollectionUrl(client, order.platform_order_id, options);
      if (found === undefined) return { order_id: id, outcome: "refused", reason: `the platform has no order ${order.platform_order_id}` };
      if (found.url === null) return { order_id: id, outcome: "skipped", reason: "the platform offers no payment link: nothing is owed on the platform order" };
      const url = found.url;
      const claimed = await withTransaction(ctx.pool, async (db) => {
        const pending = await claimNotifications(db, { shopId, stage: "payment_request", eventKey: ctx.job.id, context: { payment_url: url } }, [id], null);
        if (pending.length === 0) return [];
        const { rows } = await db.query<{ channel: string }>("select channel from preorder_notifications where id = any($1::uuid[]) order by channel", [pending]);
        return rows.map((r) => r.channel);
      });
      if (claimed.length > 0) return { order_id: id, outcome: "sent", reason: null, channels: claimed };
      // Claimed before by an earlier attempt of this job, or blocked: the ledger says which.
      const { rows } = await ctx.pool.query<{ status: string; blocked_reason: string | null; channel: string }>(
        "select status, blocked_reason, channel from preorder_notifications where order_id = $1 and stage = 'payment_request' and event_key = $2 order by channel",
        [id, ctx.job.id],
      );
      const blocked = rows.find((r) => r.status === "blocked");
      if (rows.length > 0 && !blocked) return { order_id: id, outcome: "sent", reason: null, channels: rows.map((r) => r.channel) };
      return { order_id: id, outcome: "refused", reason: `not sent: ${blocked?.blocked_reason ?? "no channel"}` };
    };
    for (const group of chunk(batch, CONCURRENCY)) {
      ctx.signal?.throwIfAborted();
      outcomes.push(...(await Promise.all(group.map(sendOne))));
    }
    await ctx.progress(outcomes.length, ids.length);
  }
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o.outcome] = (counts[o.outcome] ?? 0) + 1;
  return { counts, outcomes };
}

export const sendPaymentCollectionUrlJobRun = defineJob({ ...sendPaymentCollectionUrlJob, run: runSendPaymentCollectionUrl });
