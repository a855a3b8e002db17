import { beforeAll, describe, expect, it } from "vitest";
import { enqueueCatalogSync } from "../src/catalog/schedule.ts";
import { cancelJob } from "../src/core/jobs.ts";
import { offerSyncKey } from "../src/preorders/sync/enqueue.ts";
import { invoke } from "./helpers/app.ts";
import { type Json, newOffer, offerCall } from "./helpers/offers.ts";
import { groupVariants, mirrorVariants, offerSyncRow, useSyncEnv, waitJob, waitSynced } from "./helpers/offer-sync.ts";
import { workerJob } from "./helpers/preorder-shop.ts";
import { runNow } from "./helpers/queue.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useSyncEnv({ products: 20, variantsPerProduct: 3, locations: 2, markets: 2, collections: 3 });
type MirrorVariant = Awaited<ReturnType<typeof mirrorVariants>>[number];
let mirror: MirrorVariant[];
/** A tag some mirrored products carry and others do not. */
let tag: string;

beforeAll(async () => {
  mirror = await mirrorVariants(env);
  const counts = new Map<string, number>();
  for (const v of mirror) for (const t of v.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
  tag = [...counts.entries()].filter(([, n]) => n < mirror.length).sort((a, b) => b[1] - a[1])[0]?.[0] ?? "";
  expect(tag).not.toBe("");
  await env.startWorker();
});

const call = (method: string, id: string, suffix = "", body?: unknown) => offerCall(env.app, env.key, method, id, suffix, body);

async function offerVariants(id: string): Promise<string[]> {
  const { rows } = await env.app.pool.query<{ variant_id: string }>("select variant_id from preorder_offer_variants where offer_id = $1 order by variant_id", [id]);
  return rows.map((r) => r.variant_id);
}

/** The offer's newest resolution job. */
async function latestResolution(id: string): Promise<string> {
  const { rows } = await env.app.pool.query<{ id: string }>(
    "select id from jobs where kind = 'preorders_offer_resolve_variants' and payload->>'offer_id' = $1 order by created_at desc limit 1",
    [id],
  );
  expect(rows[0], `a resolution job of offer ${id}`).toBeDefined();
  return rows[0]?.id ?? "";
}

const ids = (variants: readonly MirrorVariant[]) => variants.map((v) => v.id).sort();

describe("set_source_to_all: resolution over the catalog mirror as a job", () => {
  it("answers the products group with a job handle; the job resolves exactly the variants outside the exclusions, then the offer syncs them", async () => {
    const id = await newOffer(env, { products: { variant_ids: [mirror[0]?.legacy_id] } }, { enable: true });
    const excludedGid = mirror.find((v) => !v.tags.includes(tag))?.id ?? "";
    const excludedLegacy = mirror.filter((v) => !v.tags.includes(tag)).at(-1)?.legacy_id ?? 0;
    const answer = await call("POST", id, "/products/set_source_to_all", {
      confirm: true,
      exclusion_tag: tag,
      excluded_variant_ids: [excludedGid, String(excludedLegacy)],
    });
    expect(answer.status).toBe(202);
    const body = answer.body as Json & { job_id: string; status_url: string };
    expect(body).toMatchObject({ source: "all", exclusion_tag: tag, excluded_variant_ids: [excludedGid, `gid://shopify/ProductVariant/${excludedLegacy}`] });
    expect(body.status_url).toBe(`/api/v2/external/jobs/${body.job_id}`);

    const job = await waitJob(env, body.job_id);
    const expected = mirror.filter((v) => !v.tags.includes(tag) && v.id !== excludedGid && v.legacy_id !== excludedLegacy);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(mirror.length - 2);
    expect(job).toMatchObject({ status: "completed", result: { source: "all", variants: expected.length } });
    expect(await offerVariants(id)).toEqual(ids(expected));
    const status = await invoke(env.app, "GET", `/jobs/${body.job_id}`, { key: env.key });
    expect(status.body).toMatchObject({ status: "completed", kind: "preorders_offer_resolve_variants" });

    const synced = await waitSynced(env, id);
    expect(await groupVariants(env, synced.platform_selling_plan_group_id ?? "")).toEqual(ids(expected));
    const list = (await call("GET", id)).body as { variants: { count: number } };
    expect(list.variants.count).toBe(expected.length);
  });

  it("changing the exclusions resolves again: rows no longer matching go, newly matching ones come", async () => {
    const id = await newOffer(env, {}, { enable: true });
    const first = (await call("POST", id, "/products/set_source_to_all", { confirm: true, exclusion_tag: tag })).body as { job_id: string };
    await waitJob(env, first.job_id);
    expect(await offerVariants(id)).toEqual(ids(mirror.filter((v) => !v.tags.includes(tag))));

    const dropped = mirror.filter((v) => !v.tags.includes(tag)).slice(0, 2);
    const patched = await call("PATCH", id, "/products", { exclusion_tag: null, excluded_variant_ids: dropped.map((v) => v.id) });
    expect(patched.status).toBe(202);
    // The PATCH answers the handle of the resolution it queued, so a client can poll it.
    const second = (patched.body as { resolution_job: { job_id: string; status_url: string } }).resolution_job;
    expect(second).toEqual({ job_id: await latestResolution(id), status_url: `/api/v2/external/jobs/${await latestResolution(id)}` });
    expect(second.job_id).not.toBe(first.job_id);
    await waitJob(env, second.job_id);
    expect(await offerVariants(id)).toEqual(ids(mirror.filter((v) => !dropped.includes(v))));
    await waitSynced(env, id);
  });

  it("a collection source resolves from the products' collections", async () => {
    const collection = mirror.find((v) => v.collection_ids.length > 0)?.collection_ids[0] ?? "";
    expect(collection).not.toBe("");
    const created = await invoke(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "A collection", products: { source: "collection", collection_id: collection } } });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const { id, resolution_job: resolution } = created.body as { id: string; resolution_job: { job_id: string } | null };
    // The create answers the handle of the resolution its collection source queued.
    expect(resolution?.job_id).toBe(await latestResolution(id));
    expect((await waitJob(env, resolution?.job_id ?? "")).status).toBe("completed");
    const expected = mirror.filter((v) => v.collection_ids.includes(collection));
    expect(expected.length).toBeLessThan(mirror.length);
    expect(await offerVariants(id)).toEqual(ids(expected));
    // Another collection: set_collection answers the new resolution's handle; the same one again queues none.
    const other = mirror.flatMap((v) => v.collection_ids).find((c) => c !== collection) ?? "";
    const moved = (await call("POST", id, "/products/set_collection", { collection_id: other })).body as { resolution_job: { job_id: string } | null };
    expect(moved.resolution_job?.job_id).toBe(await latestResolution(id));
    await waitJob(env, moved.resolution_job?.job_id ?? "");
    expect(((await call("POST", id, "/products/set_collection", { collection_id: other })).body as { resolution_job: unknown }).resolution_job).toBeNull();
    // Back to custom: the resolution is forgotten and the merchant's list replaces the resolved one.
    await call("POST", id, "/products/set_source_to_custom", { variant_ids: [mirror[0]?.legacy_id] });
    expect(await offerVariants(id)).toEqual([mirror[0]?.id]);
    expect((await env.app.pool.query("select 1 from preorder_offer_resolutions where offer_id = $1", [id])).rowCount).toBe(0);
  });

  it("auto_apply_to_new_variants picks up a variant a catalog sync brings; an offer without it keeps its resolved list", async () => {
    const auto = await newOffer(env, { inventory: { continue_selling: { enabled: true, auto_apply_to_new_variants: true } } }, { enable: true });
    const fixed = await newOffer(env, {}, { enable: true });
    for (const id of [auto, fixed]) {
      const handle = (await call("POST", id, "/products/set_source_to_all", { confirm: true })).body as { job_id: string };
      await waitJob(env, handle.job_id);
    }
    // The mirror lacks a variant (as before the platform created it); the offers resolve without it.
    const newcomer = mirror[mirror.length - 1] as MirrorVariant;
    await env.app.pool.query("delete from variants where shop_id = $1 and id = $2", [env.shopId, newcomer.id]);
    for (const id of [auto, fixed]) {
      const handle = (await call("POST", id, "/products/set_source_to_all", { confirm: true })).body as { job_id: string };
      await waitJob(env, handle.job_id);
      expect(await offerVariants(id)).not.toContain(newcomer.id);
    }
    await waitSynced(env, auto);

    // A full catalog sync mirrors it again: the auto-apply offer gets it, then syncs it to its group.
    const sync = await enqueueCatalogSync(env.app.pool, env.shopId, "full");
    expect((await waitJob(env, sync?.job_id ?? "")).status).toBe("completed");
    await waitFor("the auto-apply offer to take the new variant", async () => ((await offerVariants(auto)).includes(newcomer.id) ? true : undefined));
    const synced = await waitSynced(env, auto);
    expect(await groupVariants(env, synced.platform_selling_plan_group_id ?? "")).toContain(newcomer.id);
    expect(await offerVariants(fixed)).not.toContain(newcomer.id);
  });
});

describe("a sync deferred behind a resolution", () => {
  it("waits the worker's deferral (injected: an hour), then syncs once it is due and the resolution ended without syncing it", async () => {
    const id = await newOffer(env, { products: { variant_ids: [mirror[0]?.legacy_id] } }, { enable: true });
    await waitSynced(env, id);
    await env.stopWorker();
    // The sync (now) and a resolution are queued; the resolution's queue job goes, so its row stays
    // queued: a resolution under way that never ends.
    const handle = (await call("POST", id, "/products/set_source_to_all", { confirm: true })).body as { job_id: string };
    await env.app.pool.query("select graphile_worker.remove_job($1)", [`job:${handle.job_id}`]);
    await env.startWorker({ offerSyncDeferSeconds: 3600 });
    try {
      const deferred = await waitFor("the sync to defer itself", async () => {
        const job = await workerJob(env.app.pool, offerSyncKey(id));
        const { rows } = await env.app.pool.query<{ run_in_s: number }>("select extract(epoch from $1::timestamptz - now())::float8 as run_in_s", [job?.run_at ?? null]);
        return job && job.attempts === 0 && (rows[0]?.run_in_s ?? 0) > 60 ? rows[0]?.run_in_s : undefined;
      });
      expect(deferred).toBeGreaterThan(3500);
      expect(deferred).toBeLessThanOrEqual(3600);
      expect((await offerSyncRow(env, id)).sync_status).toBe("pending");
      // The resolution ends without queuing a sync (cancelled); the deferred one is brought forward,
      // as its time coming would.
      expect(await cancelJob(env.app.pool, handle.job_id, "test: a resolution that ends without syncing")).toBeDefined();
      expect(await runNow(env.app.pool, offerSyncKey(id))).toBe(1);
      const synced = await waitSynced(env, id);
      expect(synced.sync_status).toBe("synced");
    } finally {
      await env.stopWorker();
      await env.startWorker();
    }
  });
});
