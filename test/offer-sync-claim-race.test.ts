import pg from "pg";
import { expect, it } from "vitest";
import { offerSyncKey } from "../src/preorders/sync/enqueue.ts";
import { invoke } from "./helpers/app.ts";
import { offerCall } from "./helpers/offers.ts";
import { mirrorVariants, offerSyncRow, useSyncEnv, waitSynced } from "./helpers/offer-sync.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * The sync a variant resolution queues when it ends must not be lost when the offer's waiting sync
 * is claimed inside that add_job (between its key-clearing update and its insert): that sync read
 * the resolution as under way and deferred itself by 60 s, and the offer stayed unsynced that long
 * (seen once in CI). Triggers in this file's own database pin the real worker's steps: R the
 * resolution, S the sync.
 */
const env = useSyncEnv({ products: 5, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1 });

interface SyncJob {
  key: string | null;
  locked: boolean;
  run_in_s: number;
}

async function syncJobs(offerId: string): Promise<SyncJob[]> {
  const { rows } = await env.app.pool.query<SyncJob>(
    `select key, locked_by is not null as locked, extract(epoch from run_at - now())::float8 as run_in_s
     from graphile_worker._private_jobs where key = $1 or (payload->>'offer_id' = $2 and key is null) order by id`,
    [offerSyncKey(offerId), offerId],
  );
  return rows;
}

async function advisoryWaiters(): Promise<number[]> {
  const { rows } = await env.app.pool.query<{ pid: number }>(
    "select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'advisory' order by pid",
  );
  return rows.map((r) => r.pid);
}

it("a resolution's 'sync now' survives the sync being claimed inside its add_job; the offer syncs without the 60 s deferral", async () => {
  const pool = env.app.pool;
  await pool.query(`
    create table zz_gate (offer_id uuid primary key, armed boolean not null);
    -- Gate 4201: R's add_job(offer_sync) insert (only R's own transaction sees its job id cleared).
    create function zz_gate_r() returns trigger language plpgsql as $$
    begin
      if new.key like 'offer_sync:%' and exists (
        select 1 from zz_gate g join preorder_offer_resolutions r on r.offer_id = g.offer_id
        where g.armed and new.key = 'offer_sync:' || g.offer_id and r.job_id is null) then
        perform pg_advisory_xact_lock_shared(4201);
      end if;
      return new;
    end $$;
    create trigger zz_gate_r before insert on graphile_worker._private_jobs for each row execute function zz_gate_r();
    -- Gate 4203: the first statement of any other add_job (S's deferral) while R is uncommitted.
    create function zz_gate_s() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from zz_gate g join preorder_offer_resolutions r on r.offer_id = g.offer_id where g.armed and r.job_id is not null)
         and current_query() ilike '%add_job(%' then
        perform pg_advisory_xact_lock_shared(4203);
      end if;
      return null;
    end $$;
    create trigger zz_gate_s before insert on graphile_worker._private_tasks for each statement execute function zz_gate_s();
  `);

  const mirror = await mirrorVariants(env);
  await env.startWorker();
  const created = await invoke(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "Race", products: { variant_ids: [mirror[0]?.legacy_id] } } });
  const id = (created.body as { id: string }).id;
  expect((await offerCall(env.app, env.key, "POST", id, "/enable")).status).toBe(202);
  await waitSynced(env, id);
  const key = offerSyncKey(id);

  // 1. set_source_to_all with no worker running: its commit queues S (the sync, now) and R.
  await env.stopWorker();
  expect((await offerCall(env.app, env.key, "POST", id, "/products/set_source_to_all", { confirm: true })).status).toBe(202);

  const gate = new pg.Client({ connectionString: env.db.url });
  const holder = new pg.Client({ connectionString: env.db.url });
  await gate.connect();
  await holder.connect();
  try {
    await gate.query("select pg_advisory_lock(4201), pg_advisory_lock(4203)");
    await pool.query("insert into zz_gate values ($1, true)", [id]);
    // The holder row-locks S, so the worker's claim passes it over until R is inside add_job.
    await holder.query("begin");
    await holder.query("select 1 from graphile_worker._private_jobs where key = $1 for update", [key]);

    // 2. The worker runs R: it resolves, clears its job id, and its add_job(offer_sync) stops at its insert.
    await env.startWorker();
    const [resolution] = await waitFor("R inside add_job", async () => {
      const waiting = await advisoryWaiters();
      return waiting.length === 1 ? waiting : undefined;
    });

    // 3. S becomes claimable: the worker claims it; S reads the resolution as under way and defers.
    await holder.query("commit");
    await waitFor("S's deferral add_job", async () => (await advisoryWaiters()).find((pid) => pid !== resolution));

    // 4. R's insert meets the claimed S, then R commits: a sync to run now must be queued all the same.
    await gate.query("select pg_advisory_unlock(4201)");
    await waitFor("R committed", async () => {
      const { rows } = await pool.query("select 1 from preorder_offer_resolutions where offer_id = $1 and job_id is null", [id]);
      return rows.length > 0 ? true : undefined;
    });
    const queued = (await syncJobs(id)).filter((job) => job.key === key && !job.locked);
    expect(queued).toHaveLength(1);
    expect(queued[0]?.run_in_s).toBeLessThanOrEqual(1);
    expect((await offerSyncRow(env, id)).sync_status).toBe("pending");

    // 5. S's deferral (preserve_run_at) keeps the queued sync's time: nothing waits 60 s.
    await pool.query("update zz_gate set armed = false");
    await gate.query("select pg_advisory_unlock(4203)");
  } finally {
    await gate.end();
    await holder.end();
  }
  const synced = await waitSynced(env, id);
  expect(synced.sync_status).toBe("synced");
  expect((await syncJobs(id)).filter((job) => job.run_in_s > 30)).toEqual([]);
}, 150_000);
