import { type AnyTaskDefinition, defineTask } from "../../../core/tasks.ts";
import { withTransaction } from "../../../core/db.ts";
import { customersOfOffer, writeCustomerUnits, writeOffersRemaining } from "../counters.ts";
import { customerBackfillTask, customerUnitsSyncTask, enqueueCustomerUnitsSync, remainingSyncTask } from "../enqueue.ts";

/** graphile-worker task: the shop's `remaining` counter metafield (decision 0211; a throw is retried with backoff). */
const remainingSync = defineTask({
  ...remainingSyncTask,
  async run(ctx, { shop_id: shopId }) {
    const outcome = await writeOffersRemaining(ctx, shopId, ctx.signal);
    ctx.log.debug({ shopId, attempt: ctx.attempt, outcome }, "offers' remaining units counter");
  },
});

/** graphile-worker task: one customer's `units` counter metafield. */
const customerSync = defineTask({
  ...customerUnitsSyncTask,
  async run(ctx, { shop_id: shopId, customer_id: customerId }) {
    const outcome = await writeCustomerUnits(ctx, shopId, customerId, ctx.signal);
    ctx.log.debug({ shopId, customerId, attempt: ctx.attempt, outcome }, "customer's preorder units counter");
  },
});

/** graphile-worker task: an offer that got a per_customer.max queues the counters of its customers. */
const customerBackfill = defineTask({
  ...customerBackfillTask,
  async run(ctx, { shop_id: shopId, offer_id: offerId }) {
    const customers = await customersOfOffer(ctx.pool, shopId, offerId);
    await withTransaction(ctx.pool, (db) => enqueueCustomerUnitsSync(db, shopId, customers));
    ctx.log.debug({ shopId, offerId, customers: customers.length }, "customers' preorder units counters queued");
  },
});

export const limitCounterTasks: readonly AnyTaskDefinition[] = [remainingSync, customerSync, customerBackfill];
