import { z } from "zod";
import { jobHandleOutput } from "../../../core/outputs.ts";
import { defineAction } from "../../../core/action.ts";
import { withTransaction } from "../../../core/db.ts";
import type { JobContext } from "../../../core/job-task.ts";
import { declareJobTask, enqueueJob } from "../../../core/jobs.ts";
import { PlatformError } from "../../../platform/errors.ts";
import { chunk, unique } from "../../../platform/operations/chunk.ts";
import { addTags, removeTags } from "../../../platform/operations/tags.ts";
import type { PlatformRuntime } from "../../../platform/runtime.ts";
import { markCancelled } from "./cancel.ts";
import { BULK_ORDER_CAP, type Decision, type OrderRow, cancelDecision, findOrders, releaseDecision } from "../model.ts";
import { markReleased } from "./release.ts";

export const bulkReleaseTask = declareJobTask({ name: "preorders_orders_bulk_release" });
export const bulkCancelTask = declareJobTask({ name: "preorders_orders_bulk_cancel" });
export const bulkSetTagsTask = declareJobTask({ name: "preorders_orders_bulk_set_tags" });

/** Orders handled per transaction (release, cancel) and per progress report. */
const BATCH = 200;
/** Orders tagged on the platform at once; the client paces them by cost. */
const TAG_CONCURRENCY = 4;

export interface Outcome {
  order_id: string;
  outcome: string;
  reason: string | null;
}

const orderIds = z.array(z.string().min(1).max(100)).min(1).max(BULK_ORDER_CAP);
export const tagList = z.array(z.string().trim().min(1).max(255)).max(250);

function summary(outcomes: readonly Outcome[]): Record<string, unknown> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o.outcome] = (counts[o.outcome] ?? 0) + 1;
  return { counts, outcomes };
}

export const bulkRelease = defineAction({
  name: "preorders.orders.bulk_release",
  method: "POST",
  path: "/preorders/orders/bulk_release",
  description: `Releases up to ${BULK_ORDER_CAP} preorder orders in one job (a job handle; each submission is a new job). The job's result has one outcome per order id: released, skipped (already released or fulfilled) or refused (not found, cancelled, refunded, or an unpaid balance without force: true), with the reason.`,
  aliases: ["release many preorder orders at once", "bulk release preorder orders"],
  notes: ["At most 1000 order ids; repeated ids count once.", "Each submission is a new job: not idempotent, but releasing twice skips the orders already released."],
  output: jobHandleOutput,
  kind: "write",
  async: true,
  input: z.strictObject({ order_ids: orderIds, force: z.boolean().default(false) }),
  async handler(ctx, { input }) {
    const ids = unique(input.order_ids);
    return enqueueJob(ctx.db, { shopId: ctx.shopId, task: bulkReleaseTask, payload: { order_ids: ids, force: input.force }, total: ids.length });
  },
});

export const bulkCancel = defineAction({
  name: "preorders.orders.bulk_cancel",
  method: "POST",
  path: "/preorders/orders/bulk_cancel",
  description: `Cancels up to ${BULK_ORDER_CAP} preorder orders in the app in one job (as /preorders/orders/{id}/cancel does one). The job's result has one outcome per order id: cancelled, skipped (already cancelled) or refused (not found, or already fulfilled), with the reason.`,
  aliases: ["cancel many preorder orders at once", "bulk cancel preorder orders"],
  notes: ["At most 1000 order ids; repeated ids count once.", "The platform orders are not cancelled: cancel them on the platform too."],
  output: jobHandleOutput,
  kind: "write",
  async: true,
  input: z.strictObject({ order_ids: orderIds }),
  async handler(ctx, { input }) {
    const ids = unique(input.order_ids);
    return enqueueJob(ctx.db, { shopId: ctx.shopId, task: bulkCancelTask, payload: { order_ids: ids }, total: ids.length });
  },
});

export const bulkSetTags = defineAction({
  name: "preorders.orders.bulk_set_tags",
  method: "POST",
  path: "/preorders/orders/bulk_set_tags",
  description: `Adds and/or removes tags on up to ${BULK_ORDER_CAP} preorder orders on the platform (tagsAdd / tagsRemove: other tags stay), in one job. add and remove: arrays of at most 250 tags, at least one of them non-empty. The job's result has one outcome per order id: tagged, skipped (its tags already are as asked) or refused (not found, or the platform refused it), with the reason.`,
  aliases: ["tag many preorder orders at once", "bulk add or remove tags on preorder orders"],
  notes: ["At most 1000 order ids; add and remove take at most 250 tags each.", "Tags set by the merchant or other apps stay: only the given tags are added or removed."],
  output: jobHandleOutput,
  kind: "write",
  async: true,
  input: z
    .strictObject({ order_ids: orderIds, add: tagList.default([]), remove: tagList.default([]) })
    .refine((v) => v.add.length > 0 || v.remove.length > 0, { message: "is required unless remove is given", path: ["add"] }),
  async handler(ctx, { input }) {
    const ids = unique(input.order_ids);
    return enqueueJob(ctx.db, {
      shopId: ctx.shopId,
      task: bulkSetTagsTask,
      payload: { order_ids: ids, add: unique(input.add), remove: unique(input.remove) },
      total: ids.length,
    });
  },
});

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
  ctx: JobContext,
  decide: (order: OrderRow) => Decision,
  applied: string,
  apply: (db: Parameters<typeof markReleased>[0], shopId: string, ids: string[]) => Promise<void>,
): Promise<Record<string, unknown>> {
  const { order_ids: ids } = z.object({ order_ids: z.array(z.string()) }).parse(ctx.job.payload);
  const shopId = ctx.job.shop_id;
  if (!shopId) throw new Error(`${ctx.job.kind} job without a shop`);
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

export function runBulkRelease(ctx: JobContext): Promise<Record<string, unknown>> {
  const { force } = z.object({ force: z.boolean().default(false) }).parse(ctx.job.payload);
  return runStateBulk(ctx, (order) => releaseDecision(order, force), "released", markReleased);
}

export function runBulkCancel(ctx: JobContext): Promise<Record<string, unknown>> {
  return runStateBulk(ctx, cancelDecision, "cancelled", markCancelled);
}

const tagsPayload = z.object({ order_ids: z.array(z.string()), add: z.array(z.string()), remove: z.array(z.string()) });

/**
 * Tags each order on the platform, a few at a time; a platform refusal (user errors) refuses
 * that order only, any other platform failure fails the attempt (graphile-worker retries; tagsAdd
 * and tagsRemove are idempotent). The local copy of the tags follows what the platform accepted.
 */
export async function runBulkSetTags(ctx: JobContext, platform: PlatformRuntime): Promise<Record<string, unknown>> {
  const { order_ids: ids, add, remove } = tagsPayload.parse(ctx.job.payload);
  const shopId = ctx.job.shop_id;
  if (!shopId) throw new Error("bulk_set_tags job without a shop");
  const client = await platform.clientFor(ctx.pool, shopId);
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
