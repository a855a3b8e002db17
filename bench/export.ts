/**
 * `npm run bench:export`: the by-offer report export (granularity none: one CSV row per preorder
 * order line) over BENCH_ORDER_LINES lines (default 1,000,000, generated with INSERT ... SELECT
 * generate_series), requested through the dispatcher and run by the service's worker in a
 * process of its own; beside it, in another process, the bare `COPY (the same query) TO STDOUT
 * (FORMAT csv, HEADER)` over the same data, read and counted, not kept.
 *
 * The two sides run interleaved, BENCH_ROUNDS rounds (default 5): each round runs both, the export
 * first in odd rounds and COPY first in even ones, so neither always finds the pages the other
 * just read. Before each side the database is settled the same way: the previous export's file
 * deleted and vacuumed away, then a CHECKPOINT, so neither side pays for the other's writes.
 * Prints every round, the median of the export's share of COPY's rate with its spread (min-max)
 * over the rounds, and the peak RSS of the worker process running the job and of the export
 * process it forks. Exits non-zero when the median share is under 85%, a peak RSS is over
 * 200 MB, or a round's file differs from COPY's in rows or bytes. Writes
 * bench/results/export-<lines>.json (BENCH_RESULTS_DIR to write it elsewhere).
 *
 * The export's time is its job's, started_at to finished_at, on a worker started and settled
 * before the request is made (its start-up is not the export's): counting the rows for progress,
 * forking the export process, the COPY with the spreadsheet-formula rule in SQL, and writing every
 * chunk into the exports storage, committed. The baseline's COPY has no such rule (its file is
 * the same here: the generated data has no cell the rule changes), so the rule's cost is the
 * export's.
 *
 * Environment: BENCH_ORDER_LINES, BENCH_ROUNDS, DATABASE_URL or a scratch database (bench/lib.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { createRegistry } from "../src/action-registry.ts";
import { inlineParameters } from "../src/exports/copy.ts";
import { reportBody, reportQuery } from "../src/preorders/reports/query.ts";
import { loadConfig } from "../src/config.ts";
import { Dispatcher } from "../src/core/dispatcher.ts";
import { createApiKey, createShop } from "../src/db/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { acquireDatabase, cleanup, onCleanup, positiveIntEnv, quietPool, serviceNodeFlags } from "./lib.ts";
import { median, resultsFile, roundsFromEnv } from "./rounds.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LINES = positiveIntEnv("BENCH_ORDER_LINES", 1_000_000);
const ROUNDS = roundsFromEnv();
const LINES_PER_ORDER = 4;
const OFFERS = 10;
const TARGET_SHARE = 0.85;
const RSS_BOUND_MB = 200;

/**
 * Runs export-run.ts in a process of its own and resolves with its BENCH_RESULT. `whenReady`, if
 * given, runs when the child prints BENCH_READY; what it answers is written to the child's stdin.
 */
function child(args: string[], env: Record<string, string>, whenReady?: () => Promise<string>): Promise<Record<string, unknown>> {
  const proc: ChildProcess = spawn(process.execPath, [...serviceNodeFlags(), path.join(HERE, "export-run.ts"), ...args], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  onCleanup(async () => void proc.kill("SIGTERM"));
  return new Promise((resolve, reject) => {
    let result: Record<string, unknown> | undefined;
    if (!proc.stdout || !proc.stdin) throw new Error("no stdio");
    const stdin = proc.stdin;
    readline.createInterface({ input: proc.stdout }).on("line", (line) => {
      if (line.startsWith("BENCH_RESULT ")) result = JSON.parse(line.slice("BENCH_RESULT ".length)) as Record<string, unknown>;
      else if (line === "BENCH_READY" && whenReady) {
        whenReady().then(
          (answer) => stdin.write(`${answer}\n`),
          (error: unknown) => {
            proc.kill("SIGTERM");
            reject(error instanceof Error ? error : new Error(String(error)));
          },
        );
      } else process.stderr.write(`${line}\n`);
    });
    proc.once("exit", (code) => (result && code === 0 ? resolve(result) : reject(new Error(`export-run.ts ${args.join(" ")} exited with ${String(code)}`))));
  });
}

interface ExportSide {
  rows: number;
  bytes: number;
  seconds: number;
  chunks: number;
  worker_rss_mb: number;
  export_process_rss_mb: number;
}

interface CopySide {
  rows: number;
  bytes: number;
  seconds: number;
  rss_mb: number;
}

interface Round {
  round: number;
  first: "export" | "COPY";
  export: ExportSide;
  copy: CopySide;
  share: number;
  same_file: boolean;
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
     select $1, 'Offer ' || k, 'offer-' || k, 'active', 'gid://shopify/SellingPlan/' || (2000000000 + k)
     from generate_series(0, ${OFFERS - 1}) k`,
    [shopId],
  );
  const orders = Math.ceil(LINES / LINES_PER_ORDER);
  await pool.query(
    `insert into preorder_orders (shop_id, platform_order_id, name, email, currency, total_price, total_outstanding, balance_amount,
       financial_status, platform_created_at, platform_updated_at)
     select $1, 'gid://shopify/Order/' || g, '#' || (1000 + g), 'customer' || (g % 50000) || '@example.com', 'USD',
            400, case when g % 3 = 0 then 200 else 0 end, case when g % 2 = 0 then 200 else 0 end,
            case when g % 3 = 0 then 'partially_paid' else 'paid' end,
            timestamptz '2026-01-01' + (g % 365) * interval '1 day' + (g % 86400) * interval '1 second',
            timestamptz '2026-01-01' + (g % 365) * interval '1 day' + (g % 86400) * interval '1 second'
     from generate_series(1, $2::int) g`,
    [shopId, orders],
  );
  await pool.query(
    `insert into preorder_order_lines (order_id, shop_id, platform_line_id, variant_id, product_id, quantity, price, selling_plan_id, offer_id)
     select o.id, $1, 'gid://shopify/LineItem/' || (o.n * ${LINES_PER_ORDER} + k),
            'gid://shopify/ProductVariant/' || (44000000000000 + (o.n * ${LINES_PER_ORDER} + k) % 5000),
            'gid://shopify/Product/' || (8000000000000 + (o.n * ${LINES_PER_ORDER} + k) % 1000),
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

  const dispatcher = new Dispatcher({ registry: createRegistry(), pool, config, log });
  const body = { granularity: "none" };
  const query = reportQuery("by_offer", reportBody.parse(body), shopId);
  const copySql = inlineParameters(query.sql, query.values);

  /** The same state before either side: no export file left from a previous round, nothing left to vacuum, a fresh checkpoint. */
  async function settle(): Promise<void> {
    await pool.query("delete from exports where shop_id = $1", [shopId]);
    await pool.query("vacuum exports, export_chunks");
    await pool.query("checkpoint");
  }

  async function exportSide(): Promise<ExportSide> {
    // The service's worker (a process of its own) is started and settled; then the request, as
    // the HTTP layer would hand it to the dispatcher, enqueues the job it runs.
    let jobId = "";
    const worker = await child(["worker"], { DATABASE_URL: database.url }, async () => {
      const answer = await dispatcher.dispatch({ method: "POST", path: "/preorders/reports/by_offer/export", token: apiKey, query: {}, body: { parsed: body }, requestId: randomUUID() });
      if (answer.status !== 202) throw new Error(`export request answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      jobId = (answer.body as { job_id: string }).job_id;
      return jobId;
    });
    const { rows: jobs } = await pool.query<{
      status: string;
      seconds: number;
      result: { rows: number; bytes: number; export_id: string; export_process_peak_rss_mb: number };
      errors: unknown[];
    }>("select status, extract(epoch from finished_at - started_at)::float8 as seconds, result, errors from jobs where id = $1", [jobId]);
    const job = jobs[0];
    if (job?.status !== "completed") throw new Error(`export job ${job?.status ?? "missing"}: ${JSON.stringify(job?.errors)}`);
    const { rows: stored } = await pool.query<{ chunks: number; bytes: number }>(
      "select count(*)::int as chunks, coalesce(sum(octet_length(bytes)), 0)::float8 as bytes from export_chunks where export_id = $1",
      [job.result.export_id],
    );
    if (stored[0]?.bytes !== job.result.bytes) throw new Error(`the export stored ${stored[0]?.bytes} bytes, its job says ${job.result.bytes}`);
    return {
      rows: job.result.rows,
      bytes: job.result.bytes,
      seconds: job.seconds,
      chunks: stored[0]?.chunks ?? 0,
      worker_rss_mb: Number(worker.peak_rss_mb),
      export_process_rss_mb: job.result.export_process_peak_rss_mb,
    };
  }

  async function copySide(): Promise<CopySide> {
    const copy = (await child(["copy"], { DATABASE_URL: database.url, BENCH_COPY_SQL: copySql })) as { rows: number; bytes: number; seconds: number; peak_rss_mb: number };
    return { rows: copy.rows, bytes: copy.bytes, seconds: copy.seconds, rss_mb: copy.peak_rss_mb };
  }

  const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");
  const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
  const rounds: Round[] = [];
  process.stdout.write(`\ndatabase: ${database.description}\n`);
  process.stdout.write(`by-offer report, granularity none, over ${lines} order lines, ${ROUNDS} rounds, sides interleaved (first side alternating)\n`);
  process.stdout.write(`round first   export s  rows/s   COPY s  rows/s   export/COPY  worker RSS  export proc RSS  COPY RSS  load\n`);
  for (let round = 1; round <= ROUNDS; round++) {
    const first = round % 2 === 1 ? "export" : "COPY";
    let exported: ExportSide | undefined;
    let copied: CopySide | undefined;
    for (const side of first === "export" ? (["export", "COPY"] as const) : (["COPY", "export"] as const)) {
      await settle();
      if (side === "export") exported = await exportSide();
      else copied = await copySide();
    }
    if (!exported || !copied) throw new Error("a side did not run");
    const share = copied.seconds / exported.seconds;
    const sameFile = exported.rows === copied.rows && exported.bytes === copied.bytes;
    rounds.push({ round, first, export: exported, copy: copied, share, same_file: sameFile });
    process.stdout.write(
      `${String(round).padStart(5)} ${first.padEnd(6)} ${exported.seconds.toFixed(2).padStart(9)} ${(exported.rows / exported.seconds).toFixed(0).padStart(7)} ` +
        `${copied.seconds.toFixed(2).padStart(8)} ${(copied.rows / copied.seconds).toFixed(0).padStart(7)} ${pct(share).padStart(13)} ` +
        `${exported.worker_rss_mb.toFixed(0).padStart(8)} MB ${exported.export_process_rss_mb.toFixed(0).padStart(13)} MB ${copied.rss_mb.toFixed(0).padStart(6)} MB  ${load()}` +
        `${sameFile ? "" : `  FILES DIFFER: export ${exported.rows} rows ${exported.bytes} bytes, COPY ${copied.rows} rows ${copied.bytes} bytes`}\n`,
    );
  }
  await settle();
  await pool.end();

  const shares = rounds.map((r) => r.share);
  const share = median(shares);
  const workerRss = Math.max(...rounds.map((r) => r.export.worker_rss_mb));
  const exportRss = Math.max(...rounds.map((r) => r.export.export_process_rss_mb));
  const copyRss = Math.max(...rounds.map((r) => r.copy.rss_mb));
  const sameFiles = rounds.every((r) => r.same_file);
  const last = rounds.at(-1);
  process.stdout.write(
    `\nexport file: ${last?.export.rows} rows, ${last?.export.bytes} bytes in ${last?.export.chunks} chunks${sameFiles ? ", the same rows and bytes as COPY's in every round" : "; NOT COPY's in every round"}\n` +
      `export's share of COPY's rate: median ${pct(share)} (min ${pct(Math.min(...shares))}, max ${pct(Math.max(...shares))}) over ${ROUNDS} rounds; target >= ${pct(TARGET_SHARE)}\n` +
      `median seconds: export ${median(rounds.map((r) => r.export.seconds)).toFixed(2)}, COPY ${median(rounds.map((r) => r.copy.seconds)).toFixed(2)}\n` +
      `peak RSS over the rounds: ${workerRss.toFixed(0)} MB of the worker running the job, ${exportRss.toFixed(0)} MB of its export process (bound ${RSS_BOUND_MB} MB); ${copyRss.toFixed(0)} MB of the COPY reader\n`,
  );
  await writeFile(
    resultsFile(`export-${lines}.json`),
    `${JSON.stringify({ at: new Date().toISOString(), database: database.description, lines, rounds, median_share: share, min_share: Math.min(...shares), max_share: Math.max(...shares), worker_peak_rss_mb: workerRss, export_process_peak_rss_mb: exportRss, load_average: os.loadavg() }, null, 2)}\n`,
  );
  const ok = share >= TARGET_SHARE && workerRss <= RSS_BOUND_MB && exportRss <= RSS_BOUND_MB && sameFiles;
  await cleanup();
  process.exitCode = ok ? 0 : 1;
} catch (error) {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await cleanup();
  process.exitCode = 1;
}
