/**
 * `npm run bench:catalog-resolution`: POST /preorders/offers/{id}/products/set_source_to_all over a
 * 100,000-variant catalog mirror through the service's real HTTP layer, until its resolution job
 * reads `completed` (graphile-worker, in this process, picks the job up on its NOTIFY), beside
 * the baseline: ONE `INSERT ... SELECT` doing the same resolution in SQL (the job's very
 * statement, same parameters) into a copy of preorder_offer_variants with the same indexes and
 * foreign keys. Runs alternate; each starts from empty tables. Prints every run, the medians and
 * their ratio; target: the job within 3x of the baseline.
 *
 * Environment: BENCH_VARIANTS (100000), BENCH_VARIANTS_PER_PRODUCT (5), BENCH_RUNS (5),
 * DATABASE_URL or a scratch database (bench/lib.ts).
 */
import { randomBytes } from "node:crypto";
import { createRegistry } from "../src/action-registry.ts";
import { resolutionInsert } from "../src/preorders/sync/resolve.ts";
import { loadConfig } from "../src/config.ts";
import { Dispatcher } from "../src/core/dispatcher.ts";
import { createApiKey, createShop } from "../src/db/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { createHttpServer } from "../src/http/server.ts";
import { createLogger } from "../src/logger.ts";
import { PlatformRuntime } from "../src/platform/runtime.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { acquireDatabase, cleanup, onCleanup, positiveIntEnv, quietPool } from "./lib.ts";

const VARIANTS = positiveIntEnv("BENCH_VARIANTS", 100_000);
const PER_PRODUCT = positiveIntEnv("BENCH_VARIANTS_PER_PRODUCT", 5);
const RUNS = positiveIntEnv("BENCH_RUNS", 5);
const EXCLUSION_TAG = "no-preorder";
const COPY = "bench_resolution_copy";

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

try {
  const database = await acquireDatabase("bench_resolution");
  const log = createLogger("warn");
  const config = loadConfig({ ...process.env, DATABASE_URL: database.url, RATE_LIMIT_POINTS: "1000000000", PORT: "0", LOG_LEVEL: "warn" });
  const pool = quietPool(database.url, config.DB_POOL_SIZE);
  await migrate(pool, log);
  const shopId = await createShop(pool, "Catalog Resolution Bench Shop");
  const { apiKey } = await createApiKey(pool, shopId);

  // The mirror: products every 100th tagged with the exclusion tag, each in one of 50 collections.
  const generated = performance.now();
  const products = Math.ceil(VARIANTS / PER_PRODUCT);
  await pool.query(
    `insert into products (shop_id, id, title, handle, status, tags, collection_ids, platform_updated_at)
     select $1, 'gid://platform/Product/' || g, 'Product ' || g, 'product-' || g, 'ACTIVE',
            case when g % 100 = 0 then array['${EXCLUSION_TAG}', 'sale'] else array['sale'] end,
            array['gid://platform/Collection/' || (g % 50 + 1)], now()
     from generate_series(1, $2::int) g`,
    [shopId, products],
  );
  await pool.query(
    `insert into variants (shop_id, id, legacy_id, product_id, title, sku, price, inventory_policy, inventory_item_id, platform_updated_at)
     select $1, 'gid://platform/ProductVariant/' || g, g, 'gid://platform/Product/' || ((g - 1) / $3::int + 1), 'Variant ' || g,
            'SKU-' || g, 19.99, 'DENY', 'gid://platform/InventoryItem/' || g, now()
     from generate_series(1, $2::int) g`,
    [shopId, VARIANTS, PER_PRODUCT],
  );
  await pool.query("vacuum analyze products");
  await pool.query("vacuum analyze variants");
  // Ten excluded variants, named both ways the API takes them.
  const excluded = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? `gid://platform/ProductVariant/${i * 7 + 1}` : String(i * 7 + 1)));
  process.stderr.write(`generated ${VARIANTS} variants of ${products} products in ${((performance.now() - generated) / 1000).toFixed(1)} s\n`);

  // The baseline's copy: the same columns, indexes and foreign keys as preorder_offer_variants.
  await pool.query(`create table ${COPY} (like preorder_offer_variants including all)`);
  await pool.query(`alter table ${COPY} add foreign key (offer_id) references preorder_offers on delete cascade, add foreign key (shop_id) references shops on delete cascade`);

  const registry = createRegistry();
  const http = createHttpServer({ dispatcher: new Dispatcher({ registry, pool, config, log }), actions: registry.actions, log, bodyLimit: config.BODY_LIMIT_BYTES, healthy: async () => true });
  const origin = await http.listen({ port: 0, host: "127.0.0.1" });
  // The shop is not connected to a platform: each offer's sync records that and stops (no retries in the way).
  const platform = new PlatformRuntime({ secretsKey: randomBytes(32), webhookSecret: "bench-webhook-secret", timeoutMs: 5000, log });
  const runner = await startWorker({ pool, log, config, platform }, { cron: false });
  onCleanup(async () => {
    await runner.stop();
    await http.close();
    await pool.end();
  });

  const request = async (method: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${origin}/api/v2/external${path}`, {
      method,
      headers: { "content-type": "application/json", "x-auth-token": apiKey },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  const jobMs: number[] = [];
  const sqlMs: number[] = [];
  let resolved = 0;
  let baselineRows = 0;
  for (let run = 0; run < RUNS; run++) {
    // Each run starts from empty tables, with a fresh offer (custom, no variants).
    await pool.query(`truncate preorder_offer_variants, ${COPY}`);
    await pool.query("vacuum analyze preorder_offer_variants");
    await pool.query(`vacuum analyze ${COPY}`);
    const created = await request("POST", "/preorders/offers", { name: `Bench offer ${run + 1}` });
    if (created.status !== 202) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
    const offerId = String(created.body.id);

    // The job: from the request to `completed`.
    const t0 = performance.now();
    const answer = await request("POST", `/preorders/offers/${offerId}/products/set_source_to_all`, { confirm: true, exclusion_tag: EXCLUSION_TAG, excluded_variant_ids: excluded });
    if (answer.status !== 202 || typeof answer.body.job_id !== "string") throw new Error(`set_source_to_all answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    for (;;) {
      const { rows } = await pool.query<{ status: string; result: { variants: number } | null }>("select status, result from jobs where id = $1", [answer.body.job_id]);
      const row = rows[0];
      if (row?.status === "completed") {
        resolved = row.result?.variants ?? 0;
        break;
      }
      if (row?.status === "failed" || row?.status === "cancelled") throw new Error(`job ${answer.body.job_id} ${row.status}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    jobMs.push(performance.now() - t0);

    // The baseline: the same INSERT ... SELECT, with the same parameters, into the copy.
    const t1 = performance.now();
    const inserted = await pool.query(resolutionInsert(COPY), [shopId, null, EXCLUSION_TAG, excluded, offerId]);
    sqlMs.push(performance.now() - t1);
    baselineRows = inserted.rowCount ?? 0;
    process.stdout.write(`run ${run + 1}: job ${jobMs.at(-1)?.toFixed(0)} ms (${resolved} variants), INSERT ... SELECT ${sqlMs.at(-1)?.toFixed(0)} ms (${baselineRows} rows)\n`);
  }

  if (resolved !== baselineRows) throw new Error(`the job resolved ${resolved} variants, the baseline ${baselineRows}`);
  const job = median(jobMs);
  const sql = median(sqlMs);
  const ratio = job / sql;
  process.stdout.write(`\ndatabase: ${database.description}\n`);
  process.stdout.write(
    `set_source_to_all over ${VARIANTS} mirrored variants (${resolved} resolved): median ${job.toFixed(0)} ms from the request to the job's completion; ` +
      `one INSERT ... SELECT on a copy: median ${sql.toFixed(0)} ms; ratio ${ratio.toFixed(2)}x (target <= 3x; ${RUNS} runs)\n`,
  );
  process.exitCode = ratio <= 3 ? 0 : 1;
} catch (error) {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
