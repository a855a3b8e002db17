/**
 * `npm run bench:catalog-resolution`: POST /preorders/offers/{id}/products/set_source_to_all over a
 * 100,000-variant catalog mirror through the service's real HTTP layer, until its resolution job
 * reads `completed` (graphile-worker, in this process, picks the job up on its NOTIFY), beside
 * the baseline: ONE `INSERT ... SELECT` doing the same resolution in SQL (the job's very
 * statement, same parameters) into a copy of preorder_offer_variants with the same indexes and
 * foreign keys. The two sides run interleaved (bench/rounds.ts): BENCH_ROUNDS rounds, each
 * running both from empty tables with a fresh offer, the job first in odd rounds and the
 * INSERT first in even ones. Prints every round, the medians, and the median of the per-round
 * ratios (job over INSERT) with its spread (min-max); target: that median within 3x, exits
 * non-zero above it.
 *
 * Environment: BENCH_VARIANTS (100000), BENCH_VARIANTS_PER_PRODUCT (5), BENCH_ROUNDS (5),
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
import { gate, median, orderOf, roundsFromEnv, runRounds, times } from "./rounds.ts";

const VARIANTS = positiveIntEnv("BENCH_VARIANTS", 100_000);
const PER_PRODUCT = positiveIntEnv("BENCH_VARIANTS_PER_PRODUCT", 5);
const ROUNDS = roundsFromEnv();
const TARGET_RATIO = 3;
const SIDES = ["job", "INSERT"] as const;
const EXCLUSION_TAG = "no-preorder";
const COPY = "bench_resolution_copy";

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
     select $1, 'gid://shopify/Product/' || g, 'Product ' || g, 'product-' || g, 'ACTIVE',
            case when g % 100 = 0 then array['${EXCLUSION_TAG}', 'sale'] else array['sale'] end,
            array['gid://shopify/Collection/' || (g % 50 + 1)], now()
     from generate_series(1, $2::int) g`,
    [shopId, products],
  );
  await pool.query(
    `insert into variants (shop_id, id, legacy_id, product_id, title, sku, price, inventory_policy, inventory_item_id, platform_updated_at)
     select $1, 'gid://shopify/ProductVariant/' || g, g, 'gid://shopify/Product/' || ((g - 1) / $3::int + 1), 'Variant ' || g,
            'SKU-' || g, 19.99, 'DENY', 'gid://shopify/InventoryItem/' || g, now()
     from generate_series(1, $2::int) g`,
    [shopId, VARIANTS, PER_PRODUCT],
  );
  await pool.query("vacuum analyze products");
  await pool.query("vacuum analyze variants");
  // Ten excluded variants, named both ways the API takes them.
  const excluded = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? `gid://shopify/ProductVariant/${i * 7 + 1}` : String(i * 7 + 1)));
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

  /** The job: from the request to `completed`; answers its time and the variants it resolved. */
  const jobSide = async (offerId: string) => {
    const t0 = performance.now();
    const answer = await request("POST", `/preorders/offers/${offerId}/products/set_source_to_all`, { confirm: true, exclusion_tag: EXCLUSION_TAG, excluded_variant_ids: excluded });
    if (answer.status !== 202 || typeof answer.body.job_id !== "string") throw new Error(`set_source_to_all answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    for (;;) {
      const { rows } = await pool.query<{ status: string; result: { variants: number } | null }>("select status, result from jobs where id = $1", [answer.body.job_id]);
      const row = rows[0];
      if (row?.status === "completed") return { ms: performance.now() - t0, rows: row.result?.variants ?? 0 };
      if (row?.status === "failed" || row?.status === "cancelled") throw new Error(`job ${answer.body.job_id} ${row.status}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  };
  /** The baseline: the same INSERT ... SELECT, with the same parameters, into the copy. */
  const sqlSide = async (offerId: string) => {
    const t1 = performance.now();
    const inserted = await pool.query(resolutionInsert(COPY), [shopId, null, EXCLUSION_TAG, excluded, offerId]);
    return { ms: performance.now() - t1, rows: inserted.rowCount ?? 0 };
  };

  let offerId = "";
  const rounds = await runRounds<(typeof SIDES)[number], { ms: number; rows: number }>({
    sides: SIDES,
    rounds: ROUNDS,
    run: async (side, round) => {
      if (side === orderOf(SIDES, round)[0]) {
        // Each round starts from empty tables, with a fresh offer (custom, no variants).
        await pool.query(`truncate preorder_offer_variants, ${COPY}`);
        await pool.query("vacuum analyze preorder_offer_variants");
        await pool.query(`vacuum analyze ${COPY}`);
        const created = await request("POST", "/preorders/offers", { name: `Bench offer ${round}` });
        if (created.status !== 202) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
        offerId = String(created.body.id);
      }
      return side === "job" ? jobSide(offerId) : sqlSide(offerId);
    },
    onRound: (r) =>
      process.stdout.write(
        `round ${r.round} (${r.order[0]} first): job ${r.figures.job.ms.toFixed(0)} ms (${r.figures.job.rows} variants), INSERT ... SELECT ${r.figures.INSERT.ms.toFixed(0)} ms ` +
          `(${r.figures.INSERT.rows} rows), ${times(r.figures.job.ms / r.figures.INSERT.ms)}; load ${r.load_1m.toFixed(2)}\n`,
      ),
  });

  const mismatch = rounds.find((r) => r.figures.job.rows !== r.figures.INSERT.rows);
  if (mismatch) throw new Error(`round ${mismatch.round}: the job resolved ${mismatch.figures.job.rows} variants, the baseline ${mismatch.figures.INSERT.rows}`);
  const job = median(rounds.map((r) => r.figures.job.ms));
  const sql = median(rounds.map((r) => r.figures.INSERT.ms));
  process.stdout.write(`\ndatabase: ${database.description}\n`);
  process.stdout.write(
    `set_source_to_all over ${VARIANTS} mirrored variants (${rounds[0]?.figures.job.rows} resolved): median ${job.toFixed(0)} ms from the request to the job's completion; ` +
      `one INSERT ... SELECT on a copy: median ${sql.toFixed(0)} ms (${ROUNDS} rounds, sides interleaved, first side alternating)\n`,
  );
  gate({ name: "the job's time over the INSERT's, per round", values: rounds.map((r) => r.figures.job.ms / r.figures.INSERT.ms), target: TARGET_RATIO, bound: "max", format: times });
} catch (error) {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
