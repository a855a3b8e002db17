import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { declareTask, enqueue, enqueueAfterCommit } from "../src/core/tasks.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({ app: false, shop: false });
const task = declareTask({ name: "test.claim_race", payload: z.object({ n: z.number() }) });
const KEY = "claim-race:1";
/** The advisory lock the trigger below waits on. */
const GATE = 4201;

/**
 * Runs `add` while the job `first` is claimed between add_job's two statements: the interleaving
 * graphile-worker's add_job allows (its first statement, which clears the key of a locked job, sees
 * the job free; a worker claims it; then its insert ... on conflict do update where not locked skips
 * it). The trigger holds the insert while the test claims the job.
 */
async function claimedInsideAddJob<T>(first: string, add: () => Promise<T>): Promise<T> {
  const gate = new pg.Client({ connectionString: env.db.url });
  await gate.connect();
  try {
    await gate.query("select pg_advisory_lock($1)", [GATE]);
    const second = add();
    second.catch(() => undefined);
    await waitFor("add_job to reach its insert", async () => {
      const { rows } = await env.pool.query("select 1 from pg_stat_activity where datname = current_database() and wait_event = 'advisory'");
      return rows.length > 0 ? true : undefined;
    });
    // A worker's claim, committed between add_job's two statements.
    await env.pool.query("update graphile_worker._private_jobs set locked_at = now(), locked_by = 'test-worker' where id = $1", [first]);
    await gate.query("select pg_advisory_unlock($1)", [GATE]);
    return await second;
  } finally {
    await gate.end();
  }
}

describe("enqueue of a keyed job that a worker claims inside add_job", () => {
  beforeAll(async () => {
    await env.pool.query(`
      create function test_claim_race_gate() returns trigger language plpgsql as $$
      begin
        perform pg_advisory_xact_lock_shared(${GATE});
        return new;
      end $$;
      create trigger test_claim_race_gate before insert on graphile_worker._private_jobs
        for each row when (new.key = '${KEY}') execute function test_claim_race_gate();
    `);
  });

  it("still queues a job: the claimed one's key is cleared and a new one waits to run", async () => {
    const first = await enqueue(env.pool, task, { n: 1 }, { jobKey: KEY });
    const id = await claimedInsideAddJob(first, () => enqueue(env.pool, task, { n: 2 }, { jobKey: KEY }));
    expect(id).not.toBeNull();
    expect(id).not.toBe(first);
    const { rows } = await env.pool.query<{ id: string; key: string | null; locked: boolean; n: number }>(
      "select id::text, key, locked_at is not null as locked, (payload->>'n')::int as n from graphile_worker._private_jobs order by id",
    );
    // The claimed job runs on with the old payload, without its key; the new one holds the key.
    expect(rows).toEqual([
      { id: first, key: null, locked: true, n: 1 },
      { id: expect.any(String) as unknown, key: KEY, locked: false, n: 2 },
    ]);
  });

  it("enqueueAfterCommit answers null instead: the job claimed after the caller's commit serves it, no second job", async () => {
    await env.pool.query("delete from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = $1)", [task.name]);
    const first = await enqueueAfterCommit(env.pool, task, { n: 3 }, { jobKey: KEY });
    if (first === null) throw new Error("the first add_job queued no job");
    expect(await claimedInsideAddJob(first, () => enqueueAfterCommit(env.pool, task, { n: 4 }, { jobKey: KEY }))).toBeNull();
    const { rows } = await env.pool.query<{ id: string; key: string | null; locked: boolean; n: number }>(
      "select id::text, key, locked_at is not null as locked, (payload->>'n')::int as n from graphile_worker._private_jobs order by id",
    );
    expect(rows).toEqual([{ id: first, key: KEY, locked: true, n: 3 }]);
  });
});
