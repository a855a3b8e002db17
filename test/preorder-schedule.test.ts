import { beforeAll, describe, expect, it } from "vitest";
import { scheduleJobKey } from "../src/preorders/offers/schedule.ts";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { type Json, createOffer, offerCall } from "./helpers/offers.ts";
import { mirrorVariants, useSyncEnv, waitSynced } from "./helpers/offer-sync.ts";
import { waitFor } from "./helpers/wait.ts";
import { runNow } from "./helpers/queue.ts";

const env = useSyncEnv({ products: 2, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1 });
let otherKey: string;
let variantIds: number[];

beforeAll(async () => {
  ({ apiKey: otherKey } = await createShopWithKey(env.app.pool, "Other Shop"));
  variantIds = (await mirrorVariants(env)).map((v) => v.legacy_id);
  await env.startWorker();
});

const call = (method: string, id: string, suffix = "", body?: unknown) => offerCall(env.app, env.key, method, id, suffix, body);
const inMinutes = (minutes: number): string => new Date(Date.now() + minutes * 60_000).toISOString();

interface ScheduledJob {
  run_at: Date;
  payload: { edge: string; at: string };
}

async function scheduledJob(offerId: string, edge: "enable" | "disable"): Promise<ScheduledJob | undefined> {
  const { rows } = await env.app.pool.query<ScheduledJob>("select run_at, payload from graphile_worker._private_jobs where key = $1", [scheduleJobKey(offerId, edge)]);
  return rows[0];
}

/** Runs the edge's job now instead of at its time (what a clock reaching run_at does). */
async function runEdgeNow(offerId: string, edge: "enable" | "disable"): Promise<void> {
  await runNow(env.app.pool, scheduleJobKey(offerId, edge));
}

async function offerRow(id: string): Promise<{ status: string; sync_status: string; platform_selling_plan_group_id: string | null; schedule_enable_at: Date | null }> {
  const { rows } = await env.app.pool.query<{ status: string; sync_status: string; platform_selling_plan_group_id: string | null; schedule_enable_at: Date | null }>(
    "select status, sync_status, platform_selling_plan_group_id, schedule_enable_at from preorder_offers where id = $1",
    [id],
  );
  const row = rows[0];
  if (!row) throw new Error(`no offer ${id}`);
  return row;
}

describe("POST /preorders/offers/{id}/schedule", () => {
  it("answers the offer with its schedule, queues one job per edge at its time, and the worker enables then disables the offer (the sync follows)", async () => {
    const offer = await createOffer(env.app, env.key, { products: { variant_ids: [variantIds[0]] } });
    const enableAt = inMinutes(60);
    const disableAt = inMinutes(120);
    const answer = await call("POST", offer.id, "/schedule", { enable_at: enableAt, disable_at: disableAt });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const body = answer.body as Json;
    expect(body.id).toBe(offer.id);
    expect(body.status).toBe("draft");
    expect(body.schedule).toEqual({ enable_at: enableAt, disable_at: disableAt });
    const enableJob = await scheduledJob(offer.id, "enable");
    expect(enableJob?.run_at.toISOString()).toBe(enableAt);
    expect(enableJob?.payload.edge).toBe("enable");
    expect((await scheduledJob(offer.id, "disable"))?.run_at.toISOString()).toBe(disableAt);
    expect((await call("GET", offer.id, "/schedule")).body).toEqual({ enable_at: enableAt, disable_at: disableAt });
    expect(((await call("GET", offer.id)).body as Json).schedule).toEqual({ enable_at: enableAt, disable_at: disableAt });

    await runEdgeNow(offer.id, "enable");
    await waitFor("the scheduled enable", async () => ((await offerRow(offer.id)).status === "active" ? true : undefined));
    expect((await waitSynced(env, offer.id)).platform_selling_plan_group_id).not.toBeNull();
    const enabled = await offerRow(offer.id);
    expect(enabled.schedule_enable_at).toBeNull();
    expect((await call("GET", offer.id, "/schedule")).body).toEqual({ enable_at: null, disable_at: disableAt });

    await runEdgeNow(offer.id, "disable");
    await waitFor("the scheduled disable", async () => ((await offerRow(offer.id)).status === "disabled" ? true : undefined));
    const read = await call("GET", offer.id);
    expect((read.body as Json).status).toBe("disabled");
    expect((await call("GET", offer.id, "/schedule")).body).toEqual({ enable_at: null, disable_at: null });
  });

  it("replaces the earlier schedule: its job moves to the new time, and an edge left out is cleared with its job", async () => {
    const offer = await createOffer(env.app, env.key);
    await call("POST", offer.id, "/schedule", { enable_at: inMinutes(30), disable_at: inMinutes(90) });
    const later = inMinutes(45);
    const answer = await call("POST", offer.id, "/schedule", { enable_at: later });
    expect(answer.status).toBe(202);
    expect((answer.body as Json).schedule).toEqual({ enable_at: later, disable_at: null });
    expect((await scheduledJob(offer.id, "enable"))?.run_at.toISOString()).toBe(later);
    expect(await scheduledJob(offer.id, "disable")).toBeUndefined();
  });

  it("refuses a body without a time, a past time, a disable before the enable, unknown fields and malformed times (422)", async () => {
    const offer = await createOffer(env.app, env.key);
    const cases: [unknown, string[]][] = [
      [{}, ["enable_at is required unless disable_at is given"]],
      [{ enable_at: "2020-01-01T00:00:00Z" }, ["enable_at must be in the future"]],
      [{ enable_at: inMinutes(60), disable_at: inMinutes(30) }, ["disable_at must be after enable_at"]],
      [{ enable_at: "tomorrow" }, ["enable_at must be an ISO 8601 timestamp"]],
      [{ enable_at: inMinutes(60), start: 1 }, ["start is not allowed"]],
    ];
    for (const [body, errors] of cases) {
      const answer = await call("POST", offer.id, "/schedule", body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body).toEqual({ errors });
    }
    expect(await scheduledJob(offer.id, "enable")).toBeUndefined();
  });

  it("answers 404 for an unknown offer, another shop's and a deleted one", async () => {
    const offer = await createOffer(env.app, env.key);
    const other = await invoke(env.app, "POST", `/preorders/offers/${offer.id}/schedule`, { key: otherKey, body: { enable_at: inMinutes(5) } });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ errors: [`Preorder offer not found: ${offer.id}`] });
    expect((await call("POST", "00000000-0000-4000-8000-000000000000", "/schedule", { enable_at: inMinutes(5) })).status).toBe(404);
    expect((await call("DELETE", offer.id)).status).toBe(202);
    expect((await call("POST", offer.id, "/unschedule", {})).status).toBe(404);
    expect((await call("GET", offer.id, "/schedule")).status).toBe(404);
  });

  it("drops the schedule of a deleted offer: its jobs are removed, and one that runs anyway changes nothing", async () => {
    const offer = await createOffer(env.app, env.key);
    await call("POST", offer.id, "/schedule", { enable_at: inMinutes(10) });
    // A copy of the job under another key, as if it had been picked up before the delete removed it.
    await env.app.pool.query(
      `select graphile_worker.add_job('preorders_offer_schedule', json_build_object('shop_id', $1::text, 'offer_id', $2::text, 'edge', 'enable', 'at', $3::text),
         job_key => $4, run_at => now() + interval '1 hour')`,
      [env.shopId, offer.id, ((await scheduledJob(offer.id, "enable"))?.payload.at ?? ""), `stray:${offer.id}`],
    );
    expect((await call("DELETE", offer.id)).status).toBe(202);
    expect(await scheduledJob(offer.id, "enable")).toBeUndefined();
    await runNow(env.app.pool, `stray:${offer.id}`);
    await waitFor("the stray job to finish", async () => {
      const { rows } = await env.app.pool.query("select 1 from graphile_worker.jobs where key = $1", [`stray:${offer.id}`]);
      return rows.length === 0 ? true : undefined;
    });
    const row = await offerRow(offer.id);
    expect(row.status).toBe("draft");
    expect(row.schedule_enable_at).toBeNull();
  });
});

describe("POST /preorders/offers/{id}/unschedule", () => {
  it("clears the schedule and removes its jobs; the status stays; idempotent", async () => {
    const offer = await createOffer(env.app, env.key);
    await call("POST", offer.id, "/schedule", { enable_at: inMinutes(10), disable_at: inMinutes(20) });
    for (let i = 0; i < 2; i++) {
      const answer = await call("POST", offer.id, "/unschedule", {});
      expect(answer.status).toBe(202);
      expect((answer.body as Json).schedule).toEqual({ enable_at: null, disable_at: null });
      expect((answer.body as Json).status).toBe("draft");
    }
    expect(await scheduledJob(offer.id, "enable")).toBeUndefined();
    expect(await scheduledJob(offer.id, "disable")).toBeUndefined();
    expect((await call("POST", offer.id, "/unschedule", { now: true })).body).toEqual({ errors: ["now is not allowed"] });
  });
});

describe("a schedule change reaches the storefront", () => {
  /** The countdown the storefront reads from the variant's metafield of the offer (its `ends_at`). */
  function storefrontCountdown(offerId: string, legacyVariantId: number): Json | undefined {
    const emulator = env.emulator;
    if (!emulator) throw new Error("no emulator");
    const metafield = emulator.store.metafield("PRODUCTVARIANT", legacyVariantId, `app--${emulator.appId}--preorder`, `offer-${offerId}`);
    return metafield ? ((JSON.parse(metafield.value) as Json).countdown as Json) : undefined;
  }

  it("schedule and unschedule move the offer (revision, updated_at, sync) and rewrite a to_schedule_end countdown's end on the platform", async () => {
    const variant = variantIds[2] ?? 0;
    const offer = await createOffer(env.app, env.key, { products: { variant_ids: [variant] } });
    expect((await call("PATCH", offer.id, "/countdown", { enabled: true, mode: "to_schedule_end" })).status).toBe(202);
    expect((await call("POST", offer.id, "/enable", {})).status).toBe(202);
    await waitSynced(env, offer.id);
    expect(storefrontCountdown(offer.id, variant)).toMatchObject({ enabled: true, ends_at: null });
    const before = (await call("GET", offer.id)).body as Json;

    const disableAt = inMinutes(180);
    expect((await call("POST", offer.id, "/schedule", { disable_at: disableAt })).status).toBe(202);
    const after = (await call("GET", offer.id)).body as Json;
    // Before the fix neither moved, and the metafield kept ends_at null (issue 31).
    expect(Date.parse(String(after.updated_at))).toBeGreaterThan(Date.parse(String(before.updated_at)));
    expect((await offerRow(offer.id)).sync_status).toBe("pending");
    await waitSynced(env, offer.id);
    expect(storefrontCountdown(offer.id, variant)).toMatchObject({ enabled: true, ends_at: disableAt });

    expect((await call("POST", offer.id, "/unschedule", {})).status).toBe(202);
    await waitSynced(env, offer.id);
    expect(storefrontCountdown(offer.id, variant)).toMatchObject({ enabled: true, ends_at: null });
    // An unschedule that clears nothing is no change: the offer stays synced.
    const unchanged = ((await call("GET", offer.id)).body as Json).updated_at;
    expect((await call("POST", offer.id, "/unschedule", {})).status).toBe(202);
    expect(((await call("GET", offer.id)).body as Json).updated_at).toBe(unchanged);
    expect((await offerRow(offer.id)).sync_status).toBe("synced");
  });
});

describe("POST /preorders/offers/{id}/restore", () => {
  it("undoes the delete: the offer comes back disabled and readable, off the platform until it is enabled (decision 0210)", async () => {
    const offer = await createOffer(env.app, env.key, { products: { variant_ids: [variantIds[1]] } });
    expect((await call("POST", offer.id, "/enable", {})).status).toBe(202);
    expect((await waitSynced(env, offer.id)).platform_selling_plan_group_id).not.toBeNull();
    expect((await call("DELETE", offer.id)).status).toBe(202);
    await waitSynced(env, offer.id);
    expect((await call("GET", offer.id)).status).toBe(404);

    const answer = await call("POST", offer.id, "/restore", {});
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const body = answer.body as Json;
    expect(body.status).toBe("disabled");
    expect(body.schedule).toEqual({ enable_at: null, disable_at: null });
    expect((body.variants as Json).count).toBe(1);
    expect((await call("GET", offer.id)).status).toBe(200);
    const listed = await invoke(env.app, "GET", "/preorders/offers", { key: env.key });
    expect(((listed.body as { offers: Json[] }).offers).map((o) => o.id)).toContain(offer.id);
    // Disabled, it needs no selling plan group; enabling it puts it back on the platform.
    expect((await waitSynced(env, offer.id)).platform_selling_plan_group_id).toBeNull();
    expect((await call("POST", offer.id, "/enable", {})).status).toBe(202);
    expect((await waitSynced(env, offer.id)).platform_selling_plan_group_id).not.toBeNull();
  });

  it("is a no-op success on a live offer, keeps a deleted draft a draft, and answers 404 for another shop's or an unknown id", async () => {
    const offer = await createOffer(env.app, env.key);
    const live = await call("POST", offer.id, "/restore", {});
    expect(live.status).toBe(202);
    expect((live.body as Json).status).toBe("draft");
    expect((live.body as Json).updated_at).toBe(offer.updated_at);
    await call("DELETE", offer.id);
    expect(((await call("POST", offer.id, "/restore", {})).body as Json).status).toBe("draft");
    const other = await invoke(env.app, "POST", `/preorders/offers/${offer.id}/restore`, { key: otherKey, body: {} });
    expect(other.body).toEqual({ errors: [`Preorder offer not found: ${offer.id}`] });
    expect((await call("POST", "not-an-id", "/restore", {})).body).toEqual({ errors: ["Preorder offer not found: not-an-id"] });
  });
});
