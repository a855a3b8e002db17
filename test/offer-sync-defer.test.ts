import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { withTransaction } from "../src/core/db.ts";
import { enqueueOfferSync, offerSyncKey } from "../src/preorders/sync/enqueue.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/**
 * A sync that finds a resolution under way re-queues itself for later (a resolution that never
 * ends must not strand the offer); the resolution's own end queues the sync at once. When that
 * prompt sync is queued first, the deferred re-queue must not push it back: both carry the same
 * job key, and graphile-worker's default replaces the waiting job's run_at.
 */
const env = useTestEnv({ app: false });

async function runAt(offerId: string): Promise<Date | undefined> {
  const { rows } = await env.pool.query<{ run_at: Date }>("select run_at from graphile_worker.jobs where key = $1", [offerSyncKey(offerId)]);
  return rows[0]?.run_at;
}

describe("offer sync deferral", () => {
  it("a deferred re-queue keeps an already queued prompt sync prompt", async () => {
    const shopId = randomUUID();
    const offerId = randomUUID();
    await withTransaction(env.pool, (db) => enqueueOfferSync(db, shopId, offerId));
    const prompt = await runAt(offerId);
    await withTransaction(env.pool, (db) => enqueueOfferSync(db, shopId, offerId, 60));
    const after = await runAt(offerId);
    expect(prompt).toBeDefined();
    expect(after?.getTime()).toBe(prompt?.getTime());
  });

  it("with no sync queued, the deferred one waits its delay", async () => {
    const shopId = randomUUID();
    const offerId = randomUUID();
    const { rows } = await env.pool.query<{ now: Date }>("select now() as now");
    await withTransaction(env.pool, (db) => enqueueOfferSync(db, shopId, offerId, 60));
    expect(((await runAt(offerId))?.getTime() ?? 0) - (rows[0]?.now.getTime() ?? 0)).toBeGreaterThanOrEqual(59_000);
  });
});
