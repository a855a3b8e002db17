/**
 * `npm run bench:recalc`: POST /preorders/product_variants/bulk_recalculate_preorder_counts for
 * 5000 variants through the service's real HTTP layer, until its job reads `completed`, with
 * the worker running beside it (graphile-worker picks the job up on its NOTIFY). Over
 * BENCH_ORDER_LINES preorder lines (default 500,000) spread over the variants and more.
 * Prints each run and the median; target: median under 1 s. No baseline: the target is an
 * absolute time, so there are no two sides to interleave (bench/rounds.ts) and the runs are
 * BENCH_RUNS, not BENCH_ROUNDS.
 *
 * Environment: BENCH_RUNS (10), BENCH_VARIANTS (5000), BENCH_ORDER_LINES, DATABASE_URL or a
 * scratch database (bench/lib.ts).
 */
import { randomBytes } from "node:crypto";
import { createRegistry } from "../src/action-registry.ts";
import { loadConfig } from "../src/config.ts";
import { Dispatcher } from "../src/core/dispatcher.ts";
import { createApiKey, createShop } from "../src/db/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { createHttpServer } from "../src/http/server.ts";
import { createLogger } from "../src/logger.ts";
import { PlatformRuntime } from "../src/platform/runtime.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { acquireDatabase, cleanup, positiveIntEnv, quietPool } from "./lib.ts";
import { median as medianOf } from "./rounds.ts";

const RUNS = positiveIntEnv("BENCH_RUNS", 10);
const VARIANTS = positiveIntEnv("BENCH_VARIANTS", 5000);
const LINES = positiveIntEnv("BENCH_ORDER_LINES", 500_000);
const LINES_PER_ORDER = 4;

try {
  const database = await acquireDatabase("bench_recalc");
  const log = createLogger("warn");
  const config = loadConfig({ ...process.env, DATABASE_URL: database.url, RATE_LIMIT_POINTS: "1000000000", PORT: "0", LOG_LEVEL: "warn" });
  const pool = quietPool(database.url, config.DB_POOL_SIZE);
  await migrate(pool, log);
  const shopId = await createShop(pool, "Recalc Bench Shop");
  const { apiKey } = await createApiKey(pool, shopId);

  const started = performance.now();
  const orders = Math.ceil(LINES / LINES_PER_ORDER);
  await pool.query(
    `insert into preorder_orders (shop_id, platform_order_id, name, currency, total_price, total_outstanding, platform_created_at, platform_updated_at, cancelled_at)
     select $1, 'gid://shopify/Order/' || g, '#' || g, 'USD', 400, 0, now(), now(), case when g % 10 = 0 then now() end
     from generate_series(1, $2::int) g`,
    [shopId, orders],
  );
  // Variant ids run over twice the benchmark's set, so the counted variants are half of those with lines.
  await pool.query(
    `insert into preorder_order_lines (order_id, shop_id, platform_line_id, variant_id, quantity, price, selling_plan_id)
     select o.id, $1, o.platform_order_id || '/' || k, 'gid://shopify/ProductVariant/' || ((o.n * ${LINES_PER_ORDER} + k) % ($2::int * 2) + 1),
            1 + k % 3, 100, case when k < 3 then 'gid://shopify/SellingPlan/1' end
     from (select id, platform_order_id, row_number() over (order by platform_order_id) as n from preorder_orders where shop_id = $1) o,
          generate_series(0, ${LINES_PER_ORDER - 1}) k`,
    [shopId, VARIANTS],
  );
  await pool.query("vacuum analyze preorder_orders");
  await pool.query("vacuum analyze preorder_order_lines");
  process.stderr.write(`generated ${orders * LINES_PER_ORDER} order lines in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

  const registry = createRegistry();
  const http = createHttpServer({ dispatcher: new Dispatcher({ registry, pool, config, log }), actions: registry.actions, log, bodyLimit: config.BODY_LIMIT_BYTES, healthy: async () => true });
  const origin = await http.listen({ port: 0, host: "127.0.0.1" });
  const platform = new PlatformRuntime({ secretsKey: randomBytes(32), webhookSecret: "bench", timeoutMs: 5000, log });
  const runner = await startWorker({ pool, log, config, platform }, { cron: false });

  const variantIds = Array.from({ length: VARIANTS }, (_, i) => String(i + 1));
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const t0 = performance.now();
    const response = await fetch(`${origin}/api/v2/external/preorders/product_variants/bulk_recalculate_preorder_counts`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-auth-token": apiKey },
      body: JSON.stringify({ variant_ids: variantIds }),
    });
    const handle = (await response.json()) as { job_id: string };
    if (response.status !== 202) throw new Error(`answered ${response.status}: ${JSON.stringify(handle)}`);
    for (;;) {
      const { rows } = await pool.query<{ status: string }>("select status from jobs where id = $1", [handle.job_id]);
      const status = rows[0]?.status;
      if (status === "completed") break;
      if (status === "failed" || status === "cancelled") throw new Error(`job ${handle.job_id} ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const ms = performance.now() - t0;
    times.push(ms);
    process.stdout.write(`run ${String(run + 1).padStart(2)}: ${ms.toFixed(0)} ms\n`);
  }
  const { rows: check } = await pool.query<{ n: number; units: number }>(
    "select count(*)::int as n, sum(preorder_count)::int as units from preorder_variant_counts where shop_id = $1",
    [shopId],
  );
  await runner.stop();
  await http.close();
  await pool.end();
  const sorted = [...times].sort((a, b) => a - b);
  const median = medianOf(times);
  process.stdout.write(`\ndatabase: ${database.description}\n`);
  process.stdout.write(
    `bulk_recalculate_preorder_counts, ${VARIANTS} variants over ${orders * LINES_PER_ORDER} order lines: median ${median.toFixed(0)} ms from the request to completed ` +
      `(min ${sorted[0]?.toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms, ${RUNS} runs; target < 1000 ms); ${check[0]?.n} variants counted, ${check[0]?.units} units\n`,
  );
  await cleanup();
  process.exitCode = median < 1000 ? 0 : 1;
} catch (error) {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await cleanup();
  process.exitCode = 1;
}
