import { beforeAll, describe, expect, it } from "vitest";
import { getSellingPlanGroup, sellingPlanGroupVariantIds } from "../src/platform/operations/selling-plans.ts";
import { invoke } from "./helpers/app.ts";
import { type Json, newOffer, offerCall } from "./helpers/offers.ts";
import { mirrorVariants, useSyncEnv, waitSynced } from "./helpers/offer-sync.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useSyncEnv({ products: 8, variantsPerProduct: 2, locations: 1, markets: 1, collections: 2 });
type MirrorVariant = Awaited<ReturnType<typeof mirrorVariants>>[number];
let mirror: MirrorVariant[];

beforeAll(async () => {
  mirror = await mirrorVariants(env);
  await env.startWorker();
});

const call = (method: string, id: string, suffix = "", body?: unknown) => offerCall(env.app, env.key, method, id, suffix, body);

/** GET /jobs/{id} once the job is terminal. */
async function finishedJob(jobId: string): Promise<{ status: string; total: number | null; processed: number; result: Json }> {
  return waitFor(`job ${jobId} to finish`, async () => {
    const job = (await invoke(env.app, "GET", `/jobs/${jobId}`, { key: env.key })).body as { status: string; total: number | null; processed: number; result: Json };
    return ["completed", "failed", "cancelled"].includes(job.status) ? job : undefined;
  });
}

/** The selling plan groups the platform holds for this shop, by name. */
function platformGroupNames(): string[] {
  return [...env.emulator.store.sellingPlanGroups.values()].map((g) => (g as { name: string }).name);
}

describe("set_source_to_all reports its true progress", () => {
  it("total is the variants considered, processed the variants resolved, at GET /jobs/{id}", async () => {
    const id = await newOffer(env);
    const excluded = mirror.slice(0, 3).map((v) => v.id);
    const answer = await call("POST", id, "/products/set_source_to_all", { confirm: true, excluded_variant_ids: excluded });
    expect(answer.status).toBe(202);
    const job = await finishedJob((answer.body as { job_id: string }).job_id);
    // Every variant of the catalog was considered and resolved (in or out); the result says how many are in.
    expect(job).toMatchObject({ status: "completed", total: mirror.length, processed: mirror.length, result: { considered: mirror.length, variants: mirror.length - 3 } });
  });

  it("a collection source considers the collection's variants", async () => {
    const collection = mirror.find((v) => v.collection_ids.length > 0)?.collection_ids[0] ?? "";
    const inCollection = mirror.filter((v) => v.collection_ids.includes(collection));
    expect(inCollection.length).toBeGreaterThan(0);
    expect(inCollection.length).toBeLessThan(mirror.length);
    const id = await newOffer(env, { products: { source: "collection", collection_id: collection } });
    const { rows } = await env.app.pool.query<{ job_id: string }>(
      "select id as job_id from jobs where kind = 'preorders_offer_resolve_variants' and payload->>'offer_id' = $1",
      [id],
    );
    const job = await finishedJob(rows[0]?.job_id ?? "");
    expect(job).toMatchObject({ status: "completed", total: inCollection.length, processed: inCollection.length, result: { variants: inCollection.length } });
  });
});

describe("a draft offer stays off the platform until it is enabled", () => {
  it("creates no selling plan group for a draft (nor for its edits); enable creates it; disable keeps it without its variants; enable adds them back", async () => {
    const name = "Draft not pushed";
    const id = await newOffer(env, { name, products: { variant_ids: [mirror[0]?.legacy_id, mirror[1]?.legacy_id] } });
    // The sync ran (the revision is handled) without touching the platform.
    expect((await waitSynced(env, id)).platform_selling_plan_group_id).toBeNull();
    expect((await call("PATCH", id, "", { internal_name: "still a draft" })).status).toBe(202);
    const draft = await waitSynced(env, id);
    expect(draft.platform_selling_plan_group_id).toBeNull();
    expect(platformGroupNames()).not.toContain(name);
    // Nothing is on the platform: the offer does not claim to be synced there.
    expect(((await call("GET", id)).body as { status: string; sync: Json }).sync).toMatchObject({ status: "draft", platform_selling_plan_group_id: null });

    expect((await call("POST", id, "/enable")).status).toBe(202);
    const active = await waitSynced(env, id);
    expect(((await call("GET", id)).body as { sync: Json }).sync).toMatchObject({ status: "synced" });
    expect(active.platform_selling_plan_group_id).toMatch(/^gid:\/\/shopify\/SellingPlanGroup\/\d+$/);
    const client = await env.platform.clientFor(env.app.pool, env.shopId);
    expect((await getSellingPlanGroup(client, active.platform_selling_plan_group_id ?? ""))?.name).toBe(name);
    const members: string[] = [];
    for await (const page of sellingPlanGroupVariantIds(client, active.platform_selling_plan_group_id ?? "")) members.push(...page);
    expect(members.sort()).toEqual([mirror[0]?.id, mirror[1]?.id].sort());

    // Disabling keeps the group and its plan (orders already placed on it keep matching the offer)
    // but takes the variants out of it: nothing more can be bought on the plan (decision 0210).
    expect((await call("POST", id, "/disable")).status).toBe(202);
    const disabled = await waitSynced(env, id);
    expect(disabled.platform_selling_plan_group_id).toBe(active.platform_selling_plan_group_id);
    expect(disabled.platform_selling_plan_id).toBe(active.platform_selling_plan_id);
    const kept = await getSellingPlanGroup(client, active.platform_selling_plan_group_id ?? "");
    expect(kept?.productVariantsCount).toBe(0);
    const order = await fetch(`${env.emulator.origin}/admin/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ line_items: [{ variant_id: Number(mirror[0]?.legacy_id), quantity: 1, selling_plan_id: active.platform_selling_plan_id }] }),
    });
    expect(order.status).toBe(422);

    // Enabling again puts them back in the same group.
    expect((await call("POST", id, "/enable")).status).toBe(202);
    const again = await waitSynced(env, id);
    expect(again.platform_selling_plan_group_id).toBe(active.platform_selling_plan_group_id);
    const back: string[] = [];
    for await (const page of sellingPlanGroupVariantIds(client, active.platform_selling_plan_group_id ?? "")) back.push(...page);
    expect(back.sort()).toEqual([mirror[0]?.id, mirror[1]?.id].sort());
  });
});

describe("a disabled offer whose group the platform lost", () => {
  it("is not put back on the platform until it is enabled", async () => {
    const name = "Disabled and lost";
    const id = await newOffer(env, { name, products: { variant_ids: [mirror[2]?.legacy_id] } }, { enable: true });
    const active = await waitSynced(env, id);
    expect(platformGroupNames()).toContain(name);
    expect((await call("POST", id, "/disable")).status).toBe(202);
    await waitSynced(env, id);
    // The merchant (or a store reset) deletes the group on the platform; the offer then changes.
    for (const [groupId, group] of env.emulator.store.sellingPlanGroups) if ((group as { name: string }).name === name) env.emulator.store.sellingPlanGroups.delete(groupId);
    expect((await call("PATCH", id, "", { internal_name: "edited while disabled" })).status).toBe(202);
    const disabled = await waitSynced(env, id);
    expect(platformGroupNames()).not.toContain(name);
    // Its plan id stays: orders placed on it still match the offer.
    expect(disabled.platform_selling_plan_id).toBe(active.platform_selling_plan_id);

    expect((await call("POST", id, "/enable")).status).toBe(202);
    const enabled = await waitSynced(env, id);
    expect(platformGroupNames()).toContain(name);
    expect(enabled.platform_selling_plan_group_id).not.toBe(active.platform_selling_plan_group_id);
  });
});
