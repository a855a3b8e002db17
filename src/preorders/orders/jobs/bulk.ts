import { z } from "zod";
import { withTransaction } from "../../../core/db.ts";
import { type JobRunContext, defineJob } from "../../../core/job-task.ts";
import { declareJob } from "../../../core/jobs.ts";
import { PlatformError } from "../../../platform/errors.ts";
import { chunk } from "../../../platform/operations/chunk.ts";
import { addTags, removeTags } from "../../../platform/operations/tags.ts";
import { type Decision, type OrderRow, cancelDecision, findOrders, releaseDecision } from "../model.ts";
import { markCancelled, markReleased } from "../state-changes.ts";

const orderIds = z.array(z.string());

/** Releases orders, a batch per transaction, as the single release does one (bulk_release). */
export const bulkReleaseJob = declareJob({ name: "preorders_orders_bulk_release", payload: z.object({ order_ids: orderIds, force: z.boolean().default(false) }) });
/** Cancels orders in the app, a batch per transaction (bulk_cancel). */
export const bulkCancelJob = declareJob({ name: "preorders_orders_bulk_cancel", payload: z.object({ order_ids: orderIds }) });
/** Adds and removes tags of orders on the platform (bulk_set_tags and the single order's tag actions). */
export const bulkSetTagsJob = declareJob({
  name: "preorders_orders_bulk_set_tags",
  payload: z.object({ order_ids: orderIds, add: z.array(z.string()), remove: z.array(z.string()) }),
});

/** Orders handled per transaction (release, cancel) and per progress report. */
const BATCH = 200;
/** Orders tagged on the platform at once; the client paces them by cost. */
const TAG_CONCURRENCY = 4;

interface Outcome {
  order_id: string;
  outcome: string;
  reason: string | null;
}

function summary(outcomes: readonly Outcome[]): Record<string, unknown> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o.outcome] = (counts[o.outcome] ?? 0) + 1;
  return { counts, outcomes };
}

const notFound = (id: string): Outcome => ({ order_id: id, outcome: "refused", reason: `Preorder order not found: ${id}` });

function outcomeOf(id: string, decision: Decision, applied: string): Outcome {
  return decision.outcome === "apply" ? { order_id: id, outcome: applied, reason: null } : { order_id: id, outcome: decision.outcome, reason: decision.reason };
}

/**
 * Release or cancel, a batch per transaction: lock the batch's orders, decide each with the same
 * rule as the single action, apply the ones allowed in one statement. A retried job finds the
 * orders an earlier attempt changed already released or cancelled (skipped).
 */
async function runStateBulk(
  ctx: JobRunContext<{ order_ids: string[] }>,
  decide: (order: OrderRow) => Decision,
  applied: string,
  apply: (db: Parameters<typeof markReleased>[0], shopId: string, ids: string[]) => Promise<void>,
): Promise<Record<string, unknown>> {
  const { shopId, payload: { order_ids: ids } } = ctx;
  const outcomes: Outcome[] = [];
  for (const batch of chunk(ids, BATCH)) {
    ctx.signal?.throwIfAborted();
    const batchOutcomes = await withTransaction(ctx.pool, async (db) => {
      const orders = await findOrders(db, shopId, batch, true);
      const result = batch.map((id) => {
        const order = orders.get(id);
        return order ? outcomeOf(id, decide(order), applied) : notFound(id);
      });
      await apply(db, shopId, result.filter((o) => o.outcome === applied).map((o) => o.order_id));
      return result;
    });
    outcomes.push(...batchOutcomes);
    await ctx.progress(outcomes.length, ids.length);
  }
  return summary(outcomes);
}

export const bulkReleaseJobRun = defineJob({
  ...bulkReleaseJob,
  run: (ctx) => runStateBulk(ctx, (order) => releaseDecision(order, ctx.payload.force), "released", markReleased),
});

export const bulkCancelJobRun = defineJob({
  ...bulkCancelJob,
  run: (ctx) => runStateBulk(ctx, cancelDecision, "cancelled", markCancelled),
});

/**
 * Tags each order on the platform, a few at a time; a platform refusal (user errors) refuses
 * that order only, any other platform failure fails the attempt (graphile-worker retries; tagsAdd
 * and tagsRemove are idempotent). The local copy of the tags follows what the platform accepted.
 */
async function runBulkSetTags(ctx: JobRunContext<z.output<typeof bulkSetTagsJob.payload>>): Promise<Record<string, unknown>> {
  const { shopId, payload: { order_ids: ids, add, remove } } = ctx;
  const client = await ctx.platform.clientFor(ctx.pool, shopId);
  const options = ctx.signal ? { signal: ctx.signal } : undefined;
  const outcomes: Outcome[] = [];
  for (const batch of chunk(ids, BATCH)) {
    const orders = await findOrders(ctx.pool, shopId, batch, false);
    const tagOne = async (id: string): Promise<Outcome> => {
      const order = orders.get(id);
      if (!order) return notFound(id);
      const has = new Set(order.tags);
      if (add.every((t) => has.has(t)) && remove.every((t) => !has.has(t))) return { order_id: id, outcome: "skipped", reason: "tags already as requested" };
      try {
        if (add.length > 0) await addTags(client, order.platform_order_id, add, options);
        if (remove.length > 0) await removeTags(client, order.platform_order_id, remove, options);
      } catch (error) {
        if (error instanceof PlatformError && error.kind === "user_errors") return { order_id: id, outcome: "refused", reason: error.message };
        throw error;
      }
      await ctx.pool.query(
        `update preorder_orders set tags = array(select distinct t from unnest(tags || $2::text[]) t where not (t = any($3::text[])) order by t),
           updated_at = now()
         where id = $1`,
        [id, add, remove],
      );
      return { order_id: id, outcome: "tagged", reason: null };
    };
    for (const group of chunk(batch, TAG_CONCURRENCY)) {
      ctx.signal?.throwIfAborted();
      outcomes.push(...(await Promise.all(group.map(tagOne))));
    }
    await ctx.progress(outcomes.length, ids.length);
  }
  return summary(outcomes);
}

export const bulkSetTagsJobRun = defineJob({ ...bulkSetTagsJob, run: runBulkSetTags });
