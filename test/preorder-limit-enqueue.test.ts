import { describe, expect, it } from "vitest";
import { withTransaction } from "../src/core/db.ts";
import { enqueueCustomerUnitsSync, enqueueRemainingSync, queueLimitCountersForOrders } from "../src/preorders/limits/enqueue.ts";
import { relinkOfferOrderLines } from "../src/preorders/orders/offer-lines.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { seedOffer, seedPreorderOrder } from "./helpers/preorders.ts";

/**
 * How the limit counters' jobs are queued (decision 0211): with the change that moves them (no
 * worker here: the jobs stay in graphile-worker's table to be read).
 */
const env = useTestEnv({ shop: "Limit Enqueue Shop" });

interface QueuedJob {
  task_identifier: string;
  queue_name: string | null;
  key: string | null;
  payload: { shop_id: string; customer_id?: string };
}

async function jobsOf(shopId: string): Promise<QueuedJob[]> {
  const { rows } = await env.pool.query<QueuedJob>(
    `select j.task_identifier, j.queue_name, j.key, p.payload
     from graphile_worker.jobs j join graphile_worker._private_jobs p on p.id = j.id
     where j.task_identifier like 'preorders_limit_%' and p.payload->>'shop_id' = $1
     order by j.id`,
    [shopId],
  );
  return rows;
}

async function limitedOffer(shopId: string, plan: number, limits: Record<string, unknown>): Promise<string> {
  const offerId = await seedOffer(env.pool, shopId, `Limited ${plan}`, plan);
  await env.pool.query("update preorder_offers set settings = settings || jsonb_build_object('limits', $2::jsonb) where id = $1", [offerId, JSON.stringify(limits)]);
  return offerId;
}

describe("relinking an offer's lines queues their counters in the same transaction", () => {
  it("an enqueue that fails leaves the lines unlinked: the next relink links them and queues the counter", async () => {
    const { shopId } = await createShopWithKey(env.pool, "Relink Shop");
    const offerId = await limitedOffer(shopId, 801, { total: { max: 5 } });
    await seedPreorderOrder(env.pool, shopId, { lines: [{ sellingPlan: 801, quantity: 2 }] });
    await seedPreorderOrder(env.pool, shopId, { lines: [{ sellingPlan: 801, quantity: 1 }] });
    const linked = async () =>
      (await env.pool.query<{ n: number }>("select count(*)::int as n from preorder_order_lines where shop_id = $1 and offer_id = $2", [shopId, offerId])).rows[0]?.n;

    // A fault of the queue: the remaining counter's job cannot be inserted (once).
    await env.pool.query(
      `create function test_refuse_remaining_job() returns trigger language plpgsql as $$
       begin
         if (select identifier from graphile_worker._private_tasks where id = new.task_id) = 'preorders_limit_remaining_sync' then
           raise exception 'injected: the queue refuses the job';
         end if;
         return new;
       end $$`,
    );
    await env.pool.query("create trigger refuse_remaining_job before insert on graphile_worker._private_jobs for each row execute function test_refuse_remaining_job()");
    try {
      await expect(relinkOfferOrderLines(env.pool, shopId, offerId)).rejects.toThrow(/injected/);
    } finally {
      await env.pool.query("drop trigger refuse_remaining_job on graphile_worker._private_jobs");
      await env.pool.query("drop function test_refuse_remaining_job()");
    }
    // Nothing of it stayed: no line linked without its counter's job.
    expect(await linked()).toBe(0);
    expect(await jobsOf(shopId)).toEqual([]);

    // The sync's retry relinks them, and queues the counter.
    expect(await relinkOfferOrderLines(env.pool, shopId, offerId)).toBe(2);
    expect(await linked()).toBe(2);
    expect((await jobsOf(shopId)).map((j) => j.task_identifier)).toEqual(["preorders_limit_remaining_sync"]);
  });
});

describe("the customers an order's change queues", () => {
  it("the order's customer and the customers of the shop's other orders with its e-mail address, not another shop's", async () => {
    const { shopId } = await createShopWithKey(env.pool, "Customers Shop");
    const { shopId: otherShopId } = await createShopWithKey(env.pool, "Other Customers Shop");
    const offerId = await limitedOffer(shopId, 802, { per_customer: { max: 2 } });
    const order = async (shop: string, email: string | undefined, customer: string | null) => {
      const id = await seedPreorderOrder(env.pool, shop, { ...(email ? { email } : {}), lines: [{ sellingPlan: 802, offerId: shop === shopId ? offerId : null }] });
      await env.pool.query("update preorder_orders set customer_id = $2 where id = $1", [id, customer]);
      return id;
    };
    const changed = await order(shopId, "ann@example.com", "c-ann");
    await order(shopId, "ann@example.com", "c-ann-2");
    await order(shopId, "ann@example.com", null);
    await order(shopId, "bob@example.com", "c-bob");
    await order(otherShopId, "ann@example.com", "c-other");
    const guest = await order(shopId, undefined, "c-guest");
    await queueLimitCountersForOrders(env.pool, shopId, [changed, guest]);
    expect((await jobsOf(shopId)).map((j) => j.payload.customer_id).sort()).toEqual(["c-ann", "c-ann-2", "c-guest"]);
  });
});

describe("the counters' queues", () => {
  it("a backfill of many customers does not hold the shop's remaining counter back: a queue per counter", async () => {
    const { shopId } = await createShopWithKey(env.pool, "Queues Shop");
    const customers = Array.from({ length: 20 }, (_, n) => `c-${n}`);
    await withTransaction(env.pool, (db) => enqueueCustomerUnitsSync(db, shopId, customers));
    await enqueueRemainingSync(env.pool, shopId);
    const jobs = await jobsOf(shopId);
    const remaining = jobs.filter((j) => j.task_identifier === "preorders_limit_remaining_sync");
    const units = jobs.filter((j) => j.task_identifier === "preorders_limit_customer_sync");
    expect(remaining).toHaveLength(1);
    expect(units).toHaveLength(20);
    // Queued behind none of the customers' jobs (a shared queue runs them one at a time, in order).
    expect(units.map((j) => j.queue_name)).not.toContain(remaining[0]?.queue_name);
    // Each customer's writes stay in order in their own queue, apart from the others'.
    expect(new Set(units.map((j) => j.queue_name)).size).toBe(20);
    // Still coalesced per key: queued again, a customer's write is the same job.
    await enqueueCustomerUnitsSync(env.pool, shopId, ["c-3"]);
    expect((await jobsOf(shopId)).filter((j) => j.payload.customer_id === "c-3")).toHaveLength(1);
  });
});
