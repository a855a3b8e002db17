import { describe, expect, it } from "vitest";
import { enqueueAutoApplyResolutions } from "../src/preorders/sync/resolve.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { offerCall } from "./helpers/offers.ts";
import { waitFor } from "./helpers/wait.ts";

// No worker: the resolutions auto-apply queues stay queued, which is all this test needs.
const env = useTestEnv();

async function autoApplyOffer(name: string): Promise<string> {
  const created = await invoke(env.app, "POST", "/preorders/offers", {
    key: env.key,
    body: { name, inventory: { continue_selling: { enabled: true, auto_apply_to_new_variants: true } } },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  const id = (created.body as { id: string }).id;
  expect((await offerCall(env.app, env.key, "POST", id, "/products/set_source_to_all", { confirm: true })).status).toBe(202);
  return id;
}

describe("auto-apply after a catalog sync", () => {
  it("holds one offer's lock at a time: a writer locking the offers in the other order is not deadlocked", async () => {
    // Auto-apply visits offers by creation: first, then second.
    const first = await autoApplyOffer("First");
    const second = await autoApplyOffer("Second");
    const writer = await env.pool.connect();
    let committed = false;
    try {
      await writer.query("begin");
      await writer.query("select 1 from preorder_offers where id = $1 for update", [second]);
      const applying = enqueueAutoApplyResolutions(env.pool, env.shopId);
      // Awaited below; a test failing before then must not also leave an unhandled rejection.
      applying.catch(() => undefined);
      await waitFor("auto-apply to wait for the second offer's lock", async () => {
        const { rows } = await env.pool.query(
          "select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%preorder_offers%'",
        );
        return rows.length > 0 ? true : undefined;
      });
      // Had auto-apply kept the first offer locked while it waits for the second, this would be a
      // deadlock, and PostgreSQL would abort one of the two.
      await writer.query("select 1 from preorder_offers where id = $1 for update", [first]);
      await writer.query("commit");
      committed = true;
      expect(await applying).toBe(2);
    } finally {
      // A failed test must not hand the pool a connection still holding its locks.
      writer.release(!committed);
    }
    const { rows } = await env.pool.query<{ offer_id: string }>(
      "select r.offer_id from preorder_offer_resolutions r join jobs j on j.id = r.job_id where r.shop_id = $1 and j.status = 'queued' order by r.offer_id",
      [env.shopId],
    );
    expect(rows.map((r) => r.offer_id)).toEqual([first, second].sort());
  });
});
