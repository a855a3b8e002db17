import { describe, expect, it } from "vitest";
import { TASKS } from "../tasks/index.ts";
import { TaskRegistry } from "../src/core/task-registry.ts";
import { withTransaction } from "../src/core/db.ts";
import { pruneClientRateLimitWindows, pruneFinishedJobs, pruneRateLimitWindows } from "../src/runtime/maintenance.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ app: false, shop: false, poolSize: 2 });

describe("maintenance", () => {
  it("the crontab schedules pruning and catalog syncs", () => {
    // Each task declares its own schedules (tasks/*); these are the foundation's.
    const items = new TaskRegistry(TASKS).cronItems().filter((i) => i.task === "maintenance_prune" || i.task === "catalog_sync_schedule");
    expect(items.map((i) => [i.task, i.identifier, i.payload])).toEqual([
      ["maintenance_prune", "maintenance_prune", {}],
      ["catalog_sync_schedule", "catalog_incremental", { mode: "incremental" }],
      ["catalog_sync_schedule", "catalog_full", { mode: "full" }],
    ]);
  });

  it("removes finished jobs past retention and keeps the rest", async () => {
    const { shopId } = await createShopWithKey(env.pool);
    const { rows } = await env.pool.query<{ id: string }>(
      `insert into jobs (shop_id, kind, status, finished_at) values
         ($1, 'k', 'completed', now() - interval '31 days'),
         ($1, 'k', 'failed', now() - interval '40 days'),
         ($1, 'k', 'completed', now() - interval '29 days'),
         ($1, 'k', 'queued', null)
       returning id`,
      [shopId],
    );
    expect(await pruneFinishedJobs(env.pool, 30)).toBe(2);
    const left = await env.pool.query<{ id: string }>("select id from jobs where id = any($1)", [rows.map((r) => r.id)]);
    expect(left.rows.map((r) => r.id).sort()).toEqual([rows[2]?.id, rows[3]?.id].sort());
  });

  it("drops rate-limit windows that can no longer be charged", async () => {
    const { rows } = await env.pool.query<{ id: string }>("select id from api_keys limit 1");
    const keyId = rows[0]?.id;
    // One transaction: its now() is the same for the rows and the prune, whatever minute boundary passes.
    const pruned = await withTransaction(env.pool, async (db) => {
      await db.query(
        `insert into rate_limit_windows (key_id, window_start, points)
         select $1, floor(extract(epoch from now()) / 60)::bigint - n, 5 from generate_series(0, 3) n`,
        [keyId],
      );
      return pruneRateLimitWindows(db, 60);
    });
    expect(pruned).toBe(2);
    const left = await env.pool.query("select 1 from rate_limit_windows where key_id = $1", [keyId]);
    expect(left.rowCount).toBe(2);
  });

  it("drops the key-less clients' windows that ended a whole window ago, whatever their length", async () => {
    // One transaction: its now() is the same for the rows and the prune. Per length (60 s, 10 s):
    // the current window, the previous one (kept) and two older ones (dropped).
    const pruned = await withTransaction(env.pool, async (db) => {
      await db.query(
        `insert into client_rate_limit_windows (client_key, window_start, window_seconds, hits)
         select decode(md5(len::text || '-' || n), 'hex'), (floor(extract(epoch from now()) / len)::bigint - n) * len, len, 1
         from generate_series(0, 3) n, (values (60), (10)) l(len)`,
      );
      return pruneClientRateLimitWindows(db);
    });
    expect(pruned).toBe(4);
    const left = await env.pool.query<{ len: number; age: number }>(
      `select window_seconds as len, ((floor(extract(epoch from now()) / window_seconds)::bigint * window_seconds - window_start) / window_seconds)::int as age
       from client_rate_limit_windows order by 1, 2`,
    );
    expect(left.rows).toEqual([{ len: 10, age: 0 }, { len: 10, age: 1 }, { len: 60, age: 0 }, { len: 60, age: 1 }]);
  });
});
