import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { catalogSyncJob, enqueueCatalogSync } from "../src/catalog/schedule.ts";
import { CATALOG_SYNC_FAILED, type CatalogReadiness, type PlatformConnectionState } from "../src/catalog/readiness.ts";
import { type ApiAnswer, createShopWithKey, invoke } from "./helpers/app.ts";
import { seedSignups } from "./helpers/bis-seed.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/**
 * Readiness of the catalog mirror: GET /account/setup reports it from facts in the database, and
 * while a connected shop's first full catalog sync has not completed, the calls that look ids up
 * in the mirror (or resolve over all of it) answer 409 `catalog sync in progress` instead of
 * calling an id unknown. Once synced, unknown ids keep their messages.
 */

const IN_PROGRESS = { errors: ["catalog sync in progress"] };
// Outside every id range the emulator hands out.
const UNKNOWN_VARIANT = 987_654_321;
const UNKNOWN_COLLECTION = "gid://shopify/Collection/987654321";

// Shops are connected by the tests themselves, each under its own domain.
const env = useTestEnv({
  shop: false,
  emulator: {
    seed: { products: 4, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1 },
    throttle: { maximumAvailable: 100_000, restoreRate: 100_000 },
  },
});

/** A shop connected to the emulator; each under its own domain (a domain belongs to one shop). */
async function connectedShop(name: string, domain: string): Promise<{ shopId: string; key: string }> {
  const { shopId, apiKey } = await createShopWithKey(env.app.pool, name);
  await env.platform.connect(env.app.pool, shopId, { domain, graphqlUrl: env.emulator.graphqlUrl, accessToken: env.emulator.accessToken });
  return { shopId, key: apiKey };
}

interface Setup {
  platform: PlatformConnectionState;
  catalog: CatalogReadiness;
}

async function setup(key: string): Promise<Setup> {
  const answer = await invoke(env.app, "GET", "/account/setup", { key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as Setup;
}

async function draftOffer(key: string): Promise<string> {
  const answer = await invoke(env.app, "POST", "/preorders/offers", { key, body: { name: "Readiness" } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return (answer.body as { id: string }).id;
}

/** An offer row with an all or collection source, written as a committed earlier change left it. */
async function offerWithSource(shopId: string, source: "all" | "collection"): Promise<string> {
  const { rows } = await env.app.pool.query<{ id: string }>(
    `insert into preorder_offers (shop_id, name, internal_name, products_source, products_collection_id)
     values ($1, $2, $2, $3, $4) returning id`,
    [shopId, `Source ${source}`, source, source === "collection" ? UNKNOWN_COLLECTION : null],
  );
  return rows[0]?.id ?? "";
}

const signup = (key: string, variant: number | string): Promise<ApiAnswer> =>
  invoke(env.app, "POST", "/back_in_stock/signups", { key, body: { variant_id: variant, channel: "email", email: "waiting@example.com" } });

/** Every call that needs the mirror, with an id the mirror does not have. */
async function mirrorCalls(key: string, shopId: string): Promise<Record<string, ApiAnswer>> {
  const offer = await draftOffer(key);
  const [signupId] = await seedSignups(env.app.pool, shopId, [{ variant: 1, product: 1, contact: `moved-${randomBytes(4).toString("hex")}@example.com`, createdAt: "2025-01-01T00:00:00Z" }]);
  const products = (suffix: string, body: unknown) => invoke(env.app, "POST", `/preorders/offers/${offer}/products/${suffix}`, { key, body });
  const allOffer = await offerWithSource(shopId, "all");
  const collectionOffer = await offerWithSource(shopId, "collection");
  return {
    create: await invoke(env.app, "POST", "/preorders/offers", { key, body: { name: "Custom", products: { source: "custom", variant_ids: [UNKNOWN_VARIANT] } } }),
    create_all: await invoke(env.app, "POST", "/preorders/offers", { key, body: { name: "Everything", products: { source: "all" } } }),
    set_source_to_custom: await products("set_source_to_custom", { variant_ids: [UNKNOWN_VARIANT] }),
    add_variants: await products("add_variants", { variant_ids: [`gid://shopify/ProductVariant/${UNKNOWN_VARIANT}`] }),
    set_source_to_collection: await products("set_source_to_collection", { collection_id: UNKNOWN_COLLECTION }),
    set_source_to_all: await products("set_source_to_all", { confirm: true }),
    update_all_source: await invoke(env.app, "PATCH", `/preorders/offers/${allOffer}/products`, { key, body: { exclusion_tag: "no-preorder" } }),
    set_collection: await invoke(env.app, "POST", `/preorders/offers/${collectionOffer}/products/set_collection`, { key, body: { collection_id: UNKNOWN_COLLECTION } }),
    inventory_status: await invoke(env.app, "GET", `/preorders/products/inventory_status?variant_ids=${UNKNOWN_VARIANT}`, { key }),
    signup: await signup(key, UNKNOWN_VARIANT),
    transfer: await invoke(env.app, "POST", `/back_in_stock/signups/${signupId ?? ""}/transfer`, { key, body: { variant_id: UNKNOWN_VARIANT } }),
  };
}

function statuses(answers: Record<string, ApiAnswer>): Record<string, [number, unknown]> {
  return Object.fromEntries(Object.entries(answers).map(([name, a]) => [name, [a.status, a.body]]));
}

describe("a shop not connected to the platform", () => {
  it("reports not_started and keeps the unknown-id answers: it has no sync to wait for", async () => {
    const { shopId, apiKey: key } = await createShopWithKey(env.app.pool, "Unconnected");
    // The setup answer also carries the onboarding checklist (test/account-catalog.test.ts); the readiness fields are exactly these.
    const { platform, catalog } = await setup(key);
    expect({ platform, catalog }).toEqual({
      platform: { connected: false, domain: null },
      catalog: {
        status: "not_started",
        last_synced_at: null,
        last_full_sync_at: null,
        variants_mirrored: 0,
        products_mirrored: 0,
        collections_mirrored: 0,
        locations_mirrored: 0,
        markets_mirrored: 0,
        sync_job: null,
      },
    });
    const answers = await mirrorCalls(key, shopId);
    expect(answers.signup?.status).toBe(422);
    expect(answers.create?.status).toBe(422);
    expect(answers.set_source_to_all?.status).toBe(202);
    expect(answers.create_all?.status).toBe(202);
  });
});

describe("a connected shop before its first full sync", () => {
  it("reports not_started before any sync job and already refuses unknown ids with 409", async () => {
    const { key } = await connectedShop("Connected, never synced", "never-synced.platform.local");
    const state = await setup(key);
    expect(state.platform).toEqual({ connected: true, domain: "never-synced.platform.local" });
    expect(state.catalog).toMatchObject({ status: "not_started", sync_job: null, variants_mirrored: 0 });
    const answer = await signup(key, UNKNOWN_VARIANT);
    expect([answer.status, answer.body]).toEqual([409, IN_PROGRESS]);
  });

  it("reports failed, with the job's last error, when its latest sync job failed", async () => {
    const { shopId, key } = await connectedShop("Connected, sync failed", "sync-failed.platform.local");
    await env.app.pool.query(
      `insert into jobs (shop_id, kind, status, payload, attempts, errors, finished_at, created_at)
       values ($1, $2, 'failed', '{"mode":"full"}', 5, $3, now(), now())`,
      [shopId, catalogSyncJob.name, JSON.stringify([{ attempt: 5, message: "platform answered 401", at: new Date().toISOString() }])],
    );
    const state = await setup(key);
    expect(state.catalog).toMatchObject({ status: "failed", last_full_sync_at: null, sync_job: { status: "failed", last_error: "platform answered 401" } });
    // Nothing is in progress: the refusal says the sync failed, and where to look.
    const answer = await signup(key, UNKNOWN_VARIANT);
    expect([answer.status, answer.body]).toEqual([409, { errors: [CATALOG_SYNC_FAILED] }]);
  });
});

describe("a connected shop through its first full sync", () => {
  let shopId: string;
  let key: string;
  let jobId: string;

  beforeAll(async () => {
    ({ shopId, key } = await connectedShop("Syncing shop", env.emulator.shopDomain));
    const handle = await enqueueCatalogSync(env.app.pool, shopId, "full");
    if (!handle) throw new Error("the first sync coalesced into nothing");
    jobId = handle.job_id;
  });

  it("reports syncing with the queued job while the first full sync has not completed", async () => {
    const state = await setup(key);
    expect(state.catalog).toMatchObject({
      status: "syncing",
      last_synced_at: null,
      last_full_sync_at: null,
      variants_mirrored: 0,
      sync_job: { job_id: jobId, status_url: `/api/v2/external/jobs/${jobId}`, status: "queued", processed: 0, last_error: null },
    });
  });

  it("answers 409 `catalog sync in progress` for every call that needs the mirror, and writes nothing", async () => {
    const answers = await mirrorCalls(key, shopId);
    const expected = Object.fromEntries(Object.keys(answers).map((name) => [name, [409, IN_PROGRESS]]));
    expect(statuses(answers)).toEqual(expected);
    const { rows } = await env.app.pool.query<{ offers: number; resolutions: number }>(
      `select (select count(*) from preorder_offers where shop_id = $1 and name in ('Custom', 'Everything'))::int as offers,
              (select count(*) from jobs where shop_id = $1 and kind = 'preorders_offer_resolve_variants')::int as resolutions`,
      [shopId],
    );
    expect(rows[0]).toEqual({ offers: 0, resolutions: 0 });
  });

  it("reports ready once the sync job completed; then unknown ids keep their messages and known ones work", async () => {
    await env.startWorker();
    await waitFor("the first catalog sync", async () => {
      const { rows } = await env.app.pool.query<{ status: string }>("select status from jobs where id = $1", [jobId]);
      return rows[0]?.status === "completed" ? true : undefined;
    });
    const state = await setup(key);
    expect(state.catalog).toMatchObject({
      status: "ready",
      variants_mirrored: env.emulator.store.variants.length,
      products_mirrored: 4,
      collections_mirrored: 1,
      locations_mirrored: 1,
      markets_mirrored: 1,
      sync_job: { job_id: jobId, status: "completed", processed: env.emulator.store.variants.length },
    });
    expect(state.catalog.last_synced_at).not.toBeNull();
    expect(state.catalog.last_full_sync_at).toBe(state.catalog.last_synced_at);

    const answers = await mirrorCalls(key, shopId);
    expect(statuses(answers)).toMatchObject({
      create: [422, { errors: [`products.variant_ids.0 must be a variant of this shop (unknown id gid://shopify/ProductVariant/${UNKNOWN_VARIANT})`] }],
      set_source_to_custom: [422, { errors: [`variant_ids.0 must be a variant of this shop (unknown id gid://shopify/ProductVariant/${UNKNOWN_VARIANT})`] }],
      add_variants: [422, { errors: [`variant_ids.0 must be a variant of this shop (unknown id gid://shopify/ProductVariant/${UNKNOWN_VARIANT})`] }],
      set_source_to_collection: [422, { errors: ["collection_id must be a collection of this shop"] }],
      set_collection: [422, { errors: ["collection_id must be a collection of this shop"] }],
      signup: [422, { errors: ["variant_id must be a variant of this shop"] }],
      transfer: [422, { errors: ["variant_id must be a variant of this shop"] }],
    });
    expect(answers.set_source_to_all?.status).toBe(202);
    expect(answers.create_all?.status).toBe(202);
    expect(answers.update_all_source?.status).toBe(202);
    expect(answers.inventory_status?.status).toBe(200);
    const [unknown] = (answers.inventory_status?.body as { variants: { found: boolean; offers: { reasons: { code: string }[] }[] }[] }).variants;
    expect(unknown?.found).toBe(false);

    const known = env.emulator.store.variants[0];
    if (!known) throw new Error("the emulator has no variant");
    expect((await signup(key, known.id)).status).toBe(202);
  });

  it("stays ready while a later sync runs", async () => {
    await env.stopWorker();
    const next = await enqueueCatalogSync(env.app.pool, shopId, "incremental");
    const state = await setup(key);
    expect(state.catalog).toMatchObject({ status: "ready", sync_job: { job_id: next?.job_id, status: "queued" } });
    expect((await signup(key, UNKNOWN_VARIANT)).status).toBe(422);
  });
});
