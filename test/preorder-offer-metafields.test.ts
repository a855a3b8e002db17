import { beforeAll, describe, expect, it } from "vitest";
import type { PlatformClient } from "../src/platform/client.ts";
import { deleteMetafields, getOwnerMetafields, setMetafields } from "../src/platform/operations/metafields.ts";
import { TRANSLATABLE_FIELDS } from "../src/preorders/offers/groups/translations.ts";
import { STOREFRONT_NAMESPACE, storefrontKey } from "../src/preorders/sync/metafields.ts";
import { variantGid } from "./helpers/bis-seed.ts";
import { type Json, newOffer, offerCall } from "./helpers/offers.ts";
import { invoke } from "./helpers/app.ts";
import { mirrorVariants, offerSyncRow, useSyncEnv, waitJob, waitSynced } from "./helpers/offer-sync.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useSyncEnv({ products: 8, variantsPerProduct: 3, locations: 2, markets: 2, collections: 2 });
let client: PlatformClient;
let legacy: number[];

beforeAll(async () => {
  client = await env.platform.clientFor(env.app.pool, env.shopId);
  legacy = (await mirrorVariants(env)).map((v) => v.legacy_id);
});

const call = (method: string, id: string, suffix = "", body?: unknown) => offerCall(env.app, env.key, method, id, suffix, body);

/** The offer's storefront configuration on each variant, parsed; null where there is none. */
async function configs(offerId: string, variants: number[]): Promise<(Json | null)[]> {
  const found = await getOwnerMetafields(client, variants.map(variantGid), STOREFRONT_NAMESPACE, storefrontKey(offerId));
  return variants.map((v) => {
    const metafield = found.get(variantGid(v));
    if (!metafield) return null;
    expect(metafield).toMatchObject({ type: "json", ownerType: "PRODUCTVARIANT", namespace: `app--${env.emulator.appId}--preorder` });
    return JSON.parse(metafield.value) as Json;
  });
}

async function recorded(offerId: string): Promise<{ owner_id: string; written_at: Date }[]> {
  const { rows } = await env.app.pool.query<{ owner_id: string; written_at: Date }>(
    "select owner_id, written_at from preorder_offer_metafields where offer_id = $1 order by owner_id",
    [offerId],
  );
  return rows;
}

describe("the offer's storefront configuration in variant metafields", () => {
  it("is written on every variant of an active offer, and a setting's change reaches it", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(0, 3) } }, { enable: true });
    const synced = await waitSynced(env, id);
    const [first] = await configs(id, legacy.slice(0, 1));
    expect(first).toMatchObject({
      version: 1,
      offer_id: id,
      name: "Spring drop",
      selling_plan_id: synced.platform_selling_plan_id,
      widget: { button: { text: "Preorder" }, badge: { enabled: false } },
      payments: { mode: "full", options: [{ type: "full", deposit_percent: null }] },
      checkout: { terms: { enabled: false }, mixed_cart: { allowed: true } },
      inventory: { provider: "platform" },
    });
    expect((await configs(id, legacy.slice(0, 3))).every((c) => c !== null)).toBe(true);

    expect((await call("POST", id, "/widget/set_button_text", { text: "Reserve yours" })).status).toBe(202);
    expect((await call("PATCH", id, "/checkout", { terms: { enabled: true, text: "Ships in March." } })).status).toBe(202);
    expect((await call("PATCH", id, "/limits", { per_order: { max: 2 } })).status).toBe(202);
    expect((await call("PATCH", id, "/advanced", { custom_css: ".preorder { color: red }" })).status).toBe(202);
    expect((await call("PATCH", id, "/inventory", { provider: "app" })).status).toBe(202);
    expect((await call("PATCH", id, "/translations", { locales: ["fr"], fields: ["widget.button.text"], translations: { fr: { "widget.button.text": "Précommander" } } })).status).toBe(202);
    await waitSynced(env, id);
    for (const config of await configs(id, legacy.slice(0, 3))) {
      expect(config).toMatchObject({
        widget: { button: { text: "Reserve yours" } },
        checkout: { terms: { enabled: true, text: "Ships in March." } },
        limits: { per_order: { max: 2 } },
        custom_css: ".preorder { color: red }",
        inventory: { provider: "app" },
        translations: { locales: ["fr"], translations: { fr: { "widget.button.text": "Précommander" } } },
      });
    }
  });

  it("writes nothing again when the value did not change", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(3, 5) } }, { enable: true });
    await waitSynced(env, id);
    const before = await recorded(id);
    expect(before.map((r) => r.owner_id)).toEqual(legacy.slice(3, 5).map(variantGid).sort());
    const updatedAt = [...(await getOwnerMetafields(client, legacy.slice(3, 5).map(variantGid), STOREFRONT_NAMESPACE, storefrontKey(id))).values()].map((m) => m?.updatedAt);

    // internal_name is not part of the storefront configuration: the sync runs, the metafields stay as they were.
    expect((await call("PATCH", id, "", { internal_name: "INTERNAL-2" })).status).toBe(202);
    await waitSynced(env, id);
    expect(await recorded(id)).toEqual(before);
    const after = [...(await getOwnerMetafields(client, legacy.slice(3, 5).map(variantGid), STOREFRONT_NAMESPACE, storefrontKey(id))).values()].map((m) => m?.updatedAt);
    expect(after).toEqual(updatedAt);
  });

  it("a variant removed from the offer loses its metafield; the others keep theirs", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(6, 9) } }, { enable: true });
    await waitSynced(env, id);
    expect((await configs(id, legacy.slice(6, 9))).every((c) => c !== null)).toBe(true);
    expect((await call("POST", id, "/products/remove_variants", { variant_ids: [legacy[6]] })).status).toBe(202);
    await waitSynced(env, id);
    const [removed, ...kept] = await configs(id, legacy.slice(6, 9));
    expect(removed).toBeNull();
    expect(kept.every((c) => c !== null)).toBe(true);
    expect((await recorded(id)).map((r) => r.owner_id)).toEqual(legacy.slice(7, 9).map(variantGid).sort());
  });

  it("a variant gone from the catalog mirror (deleted on the platform, or missed by the mirror) loses its metafield where the platform still has it, and its record", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(20, 22) } }, { enable: true });
    await waitSynced(env, id);
    expect((await recorded(id)).map((r) => r.owner_id)).toEqual(legacy.slice(20, 22).map(variantGid).sort());
    await env.app.pool.query("delete from variants where shop_id = $1 and id = $2", [env.shopId, variantGid(legacy[20] ?? 0)]);
    expect((await call("PATCH", id, "", { name: "Spring drop, again" })).status).toBe(202);
    const synced = await waitSynced(env, id);
    expect(synced.sync_last_error).toBeNull();
    expect((await recorded(id)).map((r) => r.owner_id)).toEqual([variantGid(legacy[21] ?? 0)]);
    expect((await configs(id, legacy.slice(21, 22)))[0]).toMatchObject({ name: "Spring drop, again" });
    // The platform still had that variant (only the mirror lost it): its metafield is gone there too.
    expect((await configs(id, legacy.slice(20, 21)))[0]).toBeNull();
  });

  it("an offer that ends (disabled) loses its metafields and gets them back when enabled; a deleted one loses them", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(9, 11) } }, { enable: true });
    await waitSynced(env, id);
    expect((await configs(id, legacy.slice(9, 11))).every((c) => c !== null)).toBe(true);

    expect((await call("POST", id, "/disable")).status).toBe(202);
    await waitSynced(env, id);
    expect(await configs(id, legacy.slice(9, 11))).toEqual([null, null]);
    expect(await recorded(id)).toEqual([]);

    expect((await call("POST", id, "/enable")).status).toBe(202);
    await waitSynced(env, id);
    expect((await configs(id, legacy.slice(9, 11))).every((c) => c !== null)).toBe(true);

    expect((await call("DELETE", id)).status).toBe(202);
    await waitSynced(env, id);
    expect(await configs(id, legacy.slice(9, 11))).toEqual([null, null]);
    expect(await recorded(id)).toEqual([]);
  });

  it("two offers on the same variant each keep their own metafield; an offer off the platform selling plan still has its configuration", async () => {
    await env.startWorker();
    const a = await newOffer(env, { products: { variant_ids: legacy.slice(12, 13) } }, { enable: true });
    const b = await newOffer(env, { name: "Autumn drop", products: { variant_ids: legacy.slice(12, 13) } }, { enable: true });
    await waitSynced(env, a);
    await waitSynced(env, b);
    expect((await configs(a, legacy.slice(12, 13)))[0]).toMatchObject({ name: "Spring drop" });
    expect((await configs(b, legacy.slice(12, 13)))[0]).toMatchObject({ name: "Autumn drop" });

    expect((await call("PATCH", b, "/advanced", { use_platform_selling_plan: false })).status).toBe(202);
    await waitSynced(env, b);
    expect((await configs(b, legacy.slice(12, 13)))[0]).toMatchObject({ name: "Autumn drop", selling_plan_id: null });
    expect((await configs(a, legacy.slice(12, 13)))[0]).toMatchObject({ name: "Spring drop" });
  });

  it("a configuration above the platform's 128 KB for json is refused at the write; one stored before fails the sync visibly; once shortened it syncs", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(14, 15) } }, { enable: true });
    await waitSynced(env, id);
    const locales = ["fr", "de", "es", "it", "nl", "pt", "sv"];
    // 7 locales x 11 fields x 2000 characters: 154 KB of translations.
    const fields = [...TRANSLATABLE_FIELDS];
    const long = Object.fromEntries(locales.map((l) => [l, Object.fromEntries(fields.map((f) => [f, "x".repeat(2000)]))]));
    const refused = await call("PATCH", id, "/translations", { locales, fields, translations: long });
    expect(refused.status).toBe(422);
    expect((refused.body as { errors: string[] }).errors).toEqual([
      expect.stringMatching(/^translations\.translations\.fr\.widget\.button\.text makes the offer's storefront configuration \d+ bytes; the store platform keeps at most 131072 bytes in a json metafield$/),
    ]);
    // Settings stored before the write refused them (as they were until issue 31): the sync fails visibly.
    await env.app.pool.query(
      "update preorder_offers set settings = settings || jsonb_build_object('translations', jsonb_build_object('locales', $2::jsonb, 'fields', $3::jsonb, 'translations', $4::jsonb), 'advanced', jsonb_build_object('custom_css', $5::text)) where id = $1",
      [id, JSON.stringify(locales), JSON.stringify(fields), JSON.stringify(long), "y".repeat(20_000)],
    );
    expect((await call("POST", id, "/disable", {})).status).toBe(202);
    await waitSynced(env, id);
    expect((await call("POST", id, "/enable", {})).status).toBe(202);
    const failed = await waitFor("the sync of the stored configuration to fail", async () => {
      const row = await offerSyncRow(env, id);
      const bytes = Number(/is (\d+) bytes/.exec(row.sync_last_error ?? "")?.[1] ?? 0);
      return row.sync_status === "failed" && bytes >= 174_000 ? row : undefined;
    });
    expect(failed.sync_last_error).toMatch(/^the offer's storefront configuration is \d+ bytes, above the platform's 131072 for a json metafield/);

    // The offer's GET shows it as the sync's other failures.
    expect(((await call("GET", id)).body as { sync: Json }).sync).toMatchObject({ status: "failed", last_error: failed.sync_last_error });

    expect((await call("PATCH", id, "/translations", { locales: ["fr"], fields: ["widget.button.text"], translations: { fr: { "widget.button.text": "Précommander" } } })).status).toBe(202);
    await waitSynced(env, id);
    expect((await configs(id, legacy.slice(14, 15)))[0]).toMatchObject({ translations: { locales: ["fr"] } });
  });
});

describe("repairs: bulk_sync_metafields, bulk_reset_metafields and a variant's reset_metafields", () => {
  const invokeJob = async (path: string, body: unknown): Promise<{ status: string; result: unknown }> => {
    const answer = await invoke(env.app, "POST", path, { key: env.key, body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const handle = answer.body as { job_id: string; status_url: string };
    expect(handle.status_url).toBe(`/api/v2/external/jobs/${handle.job_id}`);
    return waitJob(env, handle.job_id);
  };
  const restored = (offerId: string, variants: number[]) =>
    waitFor("the metafields to be written again", async () => {
      const found = await configs(offerId, variants);
      return found.every((c) => c?.offer_id === offerId && c.name === "Spring drop") ? found : undefined;
    });

  it("bulk_sync_metafields writes again a metafield deleted on the platform behind the service's back", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(15, 17) } }, { enable: true });
    await waitSynced(env, id);
    await deleteMetafields(client, [{ ownerId: variantGid(legacy[15] ?? 0), namespace: STOREFRONT_NAMESPACE, key: storefrontKey(id) }]);
    expect((await configs(id, legacy.slice(15, 16)))[0]).toBeNull();

    const job = await invokeJob("/preorders/product_variants/bulk_sync_metafields", { offer_ids: [id] });
    expect(job).toMatchObject({ status: "completed", result: { offers_queued: 1 } });
    await restored(id, legacy.slice(15, 17));
  });

  it("reset_metafields of a variant replaces what the platform holds with the offer's configuration; bulk_reset_metafields does it for many", async () => {
    await env.startWorker();
    const id = await newOffer(env, { products: { variant_ids: legacy.slice(17, 20) } }, { enable: true });
    await waitSynced(env, id);
    const tamper = (variants: number[]) =>
      setMetafields(
        client,
        variants.map((v) => ({ ownerId: variantGid(v), namespace: STOREFRONT_NAMESPACE, key: storefrontKey(id), type: "json", value: '{"tampered":true}' })),
      );
    await tamper(legacy.slice(17, 20));

    const one = await invokeJob(`/preorders/product_variants/${legacy[17]}/reset_metafields`, {});
    expect(one).toMatchObject({ status: "completed", result: { metafields_deleted: 1, offers_queued: 1 } });
    await restored(id, legacy.slice(17, 18));
    expect((await configs(id, legacy.slice(18, 19)))[0]).toEqual({ tampered: true });

    const many = await invokeJob("/preorders/product_variants/bulk_reset_metafields", { variant_ids: legacy.slice(18, 20) });
    expect(many).toMatchObject({ status: "completed", result: { metafields_deleted: 2, offers_queued: 1 } });
    await restored(id, legacy.slice(17, 20));

    expect((await invoke(env.app, "POST", "/preorders/product_variants/1/reset_metafields", { key: env.key, body: {} })).status).toBe(404);
    expect((await invoke(env.app, "POST", "/preorders/product_variants/bulk_reset_metafields", { key: env.key, body: { variant_ids: [] } })).status).toBe(422);
  });
});
