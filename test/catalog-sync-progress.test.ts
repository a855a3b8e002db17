import { describe, expect, it } from "vitest";
import { enqueueCatalogSync } from "../src/catalog/schedule.ts";
import { syncCatalog } from "../src/catalog/sync.ts";
import { type JobRow } from "../src/core/jobs.ts";
import { createLogger } from "../src/logger.ts";
import { VARIANTS_COUNT, variantCount } from "../src/platform/catalog.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

const PRODUCTS = 30;
const VARIANTS_PER_PRODUCT = 3;
const VARIANTS = PRODUCTS * VARIANTS_PER_PRODUCT;
const log = createLogger("silent");
const env = useTestEnv({
  app: false,
  shop: true,
  emulator: { seed: { products: PRODUCTS, variantsPerProduct: VARIANTS_PER_PRODUCT, locations: 2, markets: 1, collections: 2 }, throttle: { maximumAvailable: 100_000, restoreRate: 100_000 } },
  connect: true,
});

/** A GraphQL request to the emulator's Admin API, as the platform takes it. */
async function graphql(query: string): Promise<{ data?: Record<string, unknown>; errors?: unknown[] }> {
  const response = await fetch(env.emulator.graphqlUrl, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-access-token": env.emulator.accessToken },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
}

describe("the first catalog sync counts the variants first", () => {
  it("the emulator answers productVariantsCount and productsCount as the platform does: capped at limit (10,000 by default), AT_LEAST when cut", async () => {
    const answer = await graphql(`{
      all: productVariantsCount { count precision }
      unlimited: productVariantsCount(limit: null) { count precision }
      capped: productVariantsCount(limit: 10) { count precision }
      products: productsCount { count precision }
      drafts: productsCount(query: "status:draft") { count precision }
    }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      all: { count: VARIANTS, precision: "EXACT" },
      unlimited: { count: VARIANTS, precision: "EXACT" },
      capped: { count: 10, precision: "AT_LEAST" },
      products: { count: PRODUCTS, precision: "EXACT" },
      drafts: { count: env.emulator.store.products.filter((p) => p.status === "DRAFT").length, precision: "EXACT" },
    });
    expect(VARIANTS_COUNT).toContain("productVariantsCount(limit: null)");
    expect(await variantCount(await env.platform.clientFor(env.pool, env.shopId))).toBe(VARIANTS);
  });

  it("a full sync's first progress report carries the total, before any page; every later one too", async () => {
    const reports: { processed: number; total: number | undefined }[] = [];
    const client = await env.platform.clientFor(env.pool, env.shopId);
    await syncCatalog({ pool: env.pool, client, shopId: env.shopId, mode: "full", log, progress: async (processed, total) => void reports.push({ processed, total }) });
    expect(reports[0]).toEqual({ processed: 0, total: VARIANTS });
    expect(reports.length).toBeGreaterThan(1);
    for (const report of reports) expect(report.total).toBe(VARIANTS);
    expect(reports.at(-1)).toEqual({ processed: VARIANTS, total: VARIANTS });
  });

  it("the catalog_sync job shows the total while it runs and when it is done (GET /jobs/{id}'s total)", async () => {
    await env.pool.query("delete from catalog_sync_state where shop_id = $1", [env.shopId]);
    const handle = await enqueueCatalogSync(env.pool, env.shopId, "full");
    expect(handle).toBeDefined();
    // Every write of the job's row is seen: its total is known from its first progress on.
    await env.pool.query(`create table progress_seen as select id, total, processed from jobs where false`);
    await env.pool.query(`create function seen_progress() returns trigger language plpgsql as $$
      begin insert into progress_seen values (new.id, new.total, new.processed); return new; end $$`);
    await env.pool.query(`create trigger seen_progress after update of processed on jobs for each row when (new.kind = 'catalog_sync') execute function seen_progress()`);
    await env.startWorker();
    const job = await waitFor("the sync job to complete", async () => {
      const { rows } = await env.pool.query<JobRow>("select * from jobs where id = $1", [handle?.job_id]);
      return rows[0]?.status === "completed" ? rows[0] : undefined;
    });
    expect(job).toMatchObject({ total: VARIANTS, processed: VARIANTS });
    const { rows } = await env.pool.query<{ total: number | null; processed: number }>("select total, processed from progress_seen where id = $1", [handle?.job_id]);
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.filter((r) => r.total !== VARIANTS)).toEqual([]);
    expect(rows[0]?.processed).toBe(0);
  });
});
