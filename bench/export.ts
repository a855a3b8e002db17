/**
 * `npm run bench:export`: the by-offer report export (granularity none: one CSV row per preorder
 * order line) over BENCH_ORDER_LINES lines (default 1,000,000, generated with INSERT ... SELECT
 * generate_series), requested through the dispatcher and run by the service's worker in a
 * process of its own; beside it, in another process, `COPY (the same query) TO STDOUT (FORMAT
 * csv, HEADER)` over the same data. Prints rows per second of both, the export's share of COPY's
 * rate, and the peak RSS of the worker process running the job and of the export process it forks. Targets: at least 40% of COPY's rate; peak RSS
 * under 200 MB.
 *
 * The export's time is its job's, started_at to finished_at: counting the rows for progress,
 * the cursor, CSV, and writing every chunk into the exports storage, committed.
 *
 * Environment: BENCH_ORDER_LINES, DATABASE_URL or a scratch database (bench/lib.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createRegistry } from "../src/action-registry.ts";
import { inlineParameters, reportBody, reportQuery } from "../src/preorders/reports/query.ts";
import { loadConfig } from "../src/config.ts";
import { Dispatcher } from "../src/core/dispatcher.ts";
import { createApiKey, createShop } from "../src/db/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { acquireDatabase, cleanup, onCleanup, positiveIntEnv, quietPool, serviceNodeFlags } from "./lib.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LINES = positiveIntEnv("BENCH_ORDER_LINES", 1_000_000);
const LINES_PER_ORDER = 4;
const OFFERS = 10;

function child(args: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  const proc: ChildProcess = spawn(process.execPath, [...serviceNodeFlags(), path.join(HERE, "export-run.ts"), ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  onCleanup(async () => void proc.kill("SIGTERM"));
  return new Promise((resolve, reject) => {
    let result: Record<string, unknown> | undefined;
    if (!proc.stdout) throw new Error("no stdout");
    readline.createInterface({ input: proc.stdout }).on("line", (line) => {
      if (line.startsWith("BENCH_RESULT ")) result = JSON.parse(line.slice("BENCH_RESULT ".length)) as Record<string, unknown>;
      else process.stderr.write(`${line}\n`);
    });
    proc.once("exit", (code) => (result && code === 0 ? resolve(result) : reject(new Error(`export-run.ts ${args.join(" ")} exited with ${String(code)}`))));
  });
}

try {
  const database = await acquireDatabase("bench_export");
  const log = createLogger("warn");
  const config = loadConfig({ ...process.env, DATABASE_URL: database.url, RATE_LIMIT_POINTS: "1000000000", PORT: "0", LOG_LEVEL: "warn" });
  const pool = quietPool(database.url, 4);
  await migrate(pool, log);
  const shopId = await createShop(pool, "Export Bench Shop");
  const { apiKey } = await createApiKey(pool, shopId);

  const generating = performance.now();
  // Offers with their platform selling plans, as the offers' sync leaves them.
  await pool.query(
    `insert into preorder_offers (shop_id, name, internal_name, status, platform_selling_plan_id)
     select $1, 'Offer ' || k, 'offer-' || k, 'active', 'gid://platform/SellingPlan/' || (2000000000 + k)
     from generate_series(0, ${OFFERS - 1}) k`,
    [shopId],
  );
  const orders = Math.ceil(LINES / LINES_PER_ORDER);
  await pool.query(
    `insert into preorder_orders (shop_id, platform_order_id, name, email, currency, total_price, total_outstanding, balance_amount,
       financial_status, platform_created_at, platform_updated_at)
     select $1, 'gid://platform/Order/' || g, '#' || (1000 + g), 'customer' || (g % 50000) || '@example.com', 'USD',
            400, case when g % 3 = 0 then 200 else 0 end, case when g % 2 = 0 then 200 else 0 end,
            case when g % 3 = 0 then 'partially_paid' else 'paid' end,
            timestamptz '2026-01-01' + (g % 365) * interval '1 day' + (g % 86400) * interval '1 second',
            timestamptz '2026-01-01' + (g % 365) * interval '1 day' + (g % 86400) * interval '1 second'
     from generate_series(1, $2::int) g`,
    [shopId, orders],
  );
  await pool.query(
    `insert into preorder_order_lines (order_id, shop_id, platform_line_id, variant_id, product_id, quantity, price, selling_plan_id, offer_id)
     select o.id, $1, 'gid://platform/LineItem/' || (o.n * ${LINES_PER_ORDER} + k),
            'gid://platform/ProductVariant/' || (44000000000000 + (o.n * ${LINES_PER_ORDER} + k) % 5000),
            'gid://platform/Product/' || (8000000000000 + (o.n * ${LINES_PER_ORDER} + k) % 1000),
            1, 100, po.platform_selling_plan_id, po.id
     from (select id, row_number() over (order by platform_order_id) as n from preorder_orders where shop_id = $1) o
     cross join generate_series(0, ${LINES_PER_ORDER - 1}) k
     join preorder_offers po on po.shop_id = $1 and po.internal_name = 'offer-' || ((o.n + k) % ${OFFERS})`,
    [shopId],
  );
  await pool.query("vacuum analyze preorder_orders");
  await pool.query("vacuum analyze preorder_order_lines");
  const { rows: counted } = await pool.query<{ n: number }>("select count(*)::int as n from preorder_order_lines where shop_id = $1", [shopId]);
  const lines = counted[0]?.n ?? 0;
  process.stderr.write(`generated ${lines} order lines in ${((performance.now() - generating) / 1000).toFixed(1)} s\n`);

  // The request, as the HTTP layer would hand it to the dispatcher.
  const dispatcher = new Dispatcher({ registry: createRegistry(), pool, config, log });
  const answer = await dispatcher.dispatch({
    method: "POST",
    path: "/preorders/reports/by_offer/export",
    token: apiKey,
    query: {},
    body: { parsed: { granularity: "none" } },
    requestId: randomUUID(),
  });
  if (answer.status !== 202) throw new Error(`export request answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const jobId = (answer.body as { job_id: string }).job_id;
  const exporting = await child(["worker"], { DATABASE_URL: database.url, BENCH_JOB_ID: jobId });
  const { rows: jobs } = await pool.query<{
    status: string;
    seconds: number;
    result: { rows: number; bytes: number; export_id: string; export_process_peak_rss_mb: number };
    errors: unknown[];
  }>(
    "select status, extract(epoch from finished_at - started_at)::float8 as seconds, result, errors from jobs where id = $1",
    [jobId],
  );
  const job = jobs[0];
  if (job?.status !== "completed") throw new Error(`export job ${job?.status ?? "missing"}: ${JSON.stringify(job?.errors)}`);
  const { rows: stored } = await pool.query<{ chunks: number; bytes: string }>(
    "select count(*)::int as chunks, sum(octet_length(bytes))::text as bytes from export_chunks where export_id = $1",
    [job.result.export_id],
  );

  const copySql = inlineParameters(reportQuery("by_offer", reportBody.parse({ granularity: "none" }), shopId), (v) => pg.escapeLiteral(v));
  const copy = (await child(["copy"], { DATABASE_URL: database.url, BENCH_COPY_SQL: copySql })) as { rows: number; bytes: number; seconds: number; peak_rss_mb: number };
  await pool.end();

  const exportRate = job.result.rows / job.seconds;
  const copyRate = copy.rows / copy.seconds;
  const share = exportRate / copyRate;
  // The job runs in the worker, which forks the process that streams the CSV: both count.
  const workerRss = Number(exporting.peak_rss_mb);
  const streamerRss = job.result.export_process_peak_rss_mb;
  const rss = Math.max(workerRss, streamerRss);
  const row = (name: string, rows: number, bytes: number, seconds: number, rate: number, peak: number) =>
    `${name.padEnd(8)} ${String(rows).padStart(9)} ${(bytes / 1e6).toFixed(1).padStart(9)} ${seconds.toFixed(2).padStart(8)} ${rate.toFixed(0).padStart(10)} ${peak.toFixed(0).padStart(12)}`;
  process.stdout.write(`\ndatabase: ${database.description}\n`);
  process.stdout.write(`by-offer report, granularity none, over ${lines} order lines\n`);
  process.stdout.write(`side        rows        MB  seconds     rows/s  peak RSS MB\n`);
  process.stdout.write(`${row("export", job.result.rows, job.result.bytes, job.seconds, exportRate, rss)}\n`);
  process.stdout.write(`${row("COPY", copy.rows, copy.bytes, copy.seconds, copyRate, copy.peak_rss_mb)}\n`);
  process.stdout.write(
    `\nexport stored ${stored[0]?.chunks} chunks, ${stored[0]?.bytes} bytes; reaches ${(share * 100).toFixed(1)}% of COPY's rate (target >= 40%); ` +
      `peak RSS ${workerRss.toFixed(0)} MB of the worker running the job, ${streamerRss.toFixed(0)} MB of its export process (target < 200)\n`,
  );
  const ok = share >= 0.4 && rss < 200 && job.result.rows === copy.rows && job.result.bytes === copy.bytes;
  if (job.result.bytes !== copy.bytes) process.stdout.write(`note: the export's bytes (${job.result.bytes}) differ from COPY's (${copy.bytes})\n`);
  await cleanup();
  process.exitCode = ok ? 0 : 1;
} catch (error) {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await cleanup();
  process.exitCode = 1;
}
