/**
 * `npm run bench:catalog`: a full catalog sync of a 100,000-variant store from the emulator
 * (default 20,000 products x 5 variants) beside its baseline, paging the same data with the same
 * queries without writing it. Each run is its own process (peak RSS is that process's); the
 * emulator runs in a third. Prints variants/s, peak RSS and the share of throttled calls.
 *
 * Environment: BENCH_PRODUCTS, BENCH_VARIANTS_PER_PRODUCT, BENCH_BUCKET_MAX, BENCH_RESTORE_RATE
 * (the emulator's cost bucket), DATABASE_URL or a scratch database (see bench/lib.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { createApiKey, createShop } from "../src/db/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { acquireDatabase, cleanup, onCleanup, quietPool, serviceNodeFlags } from "./lib.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));

interface RunResult {
  mode: string;
  variants: number;
  seconds: number;
  variants_per_second: number;
  peak_rss_mb: number;
  calls: number;
  throttled: number;
  throttled_share: number;
}

/** Runs a bench script as a child; resolves with the JSON after `prefix` on its stdout. */
function child(script: string, args: string[], env: Record<string, string>, prefix: string, keepRunning: boolean): Promise<{ value: unknown; process: ChildProcess }> {
  const proc = spawn(process.execPath, [...serviceNodeFlags(), path.join(HERE, script), ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: proc.stdout });
    lines.on("line", (line) => {
      if (line.startsWith(prefix)) resolve({ value: JSON.parse(line.slice(prefix.length)) as unknown, process: proc });
    });
    proc.once("exit", (code) => {
      if (!keepRunning || code !== 0) reject(new Error(`${script} ${args.join(" ")} exited with ${String(code)} before reporting`));
    });
  });
}

try {
  const database = await acquireDatabase("bench_catalog");
  const pool = quietPool(database.url, 2);
  await migrate(pool, createLogger("warn"));
  const shopId = await createShop(pool, "Catalog Bench Shop");
  await createApiKey(pool, shopId);
  await pool.end();

  const emulatorStart = performance.now();
  const emulator = await child("catalog-emulator.ts", [], {}, "BENCH_EMULATOR ", true);
  onCleanup(async () => {
    emulator.process.kill("SIGTERM");
  });
  const { graphqlUrl, accessToken } = emulator.value as { graphqlUrl: string; accessToken: string };
  process.stderr.write(`emulator seeded and listening in ${((performance.now() - emulatorStart) / 1000).toFixed(1)} s\n`);

  const env = { DATABASE_URL: database.url, BENCH_SHOP_ID: shopId, BENCH_GRAPHQL_URL: graphqlUrl, BENCH_ACCESS_TOKEN: accessToken };
  const results: RunResult[] = [];
  for (const mode of ["baseline", "sync"]) {
    const run = await child("catalog-run.ts", [mode], env, "BENCH_RESULT ", false);
    results.push(run.value as RunResult);
  }
  const [base, sync] = results;
  if (!base || !sync) throw new Error("a run reported nothing");
  const ratio = sync.variants_per_second / base.variants_per_second;
  const row = (r: RunResult) =>
    `${r.mode.padEnd(9)} ${String(r.variants).padStart(8)} ${r.seconds.toFixed(1).padStart(8)} ${r.variants_per_second.toFixed(0).padStart(11)} ${r.peak_rss_mb.toFixed(0).padStart(12)} ${String(r.calls).padStart(6)} ${(r.throttled_share * 100).toFixed(2).padStart(10)}%`;
  process.stdout.write(`\ndatabase: ${database.description}\n`);
  process.stdout.write(`mode       variants  seconds  variants/s  peak RSS MB  calls  throttled\n`);
  process.stdout.write(`${row(base)}\n${row(sync)}\n`);
  process.stdout.write(
    `\nfull sync reaches ${(ratio * 100).toFixed(1)}% of the baseline's rate (target >= 50%); ` +
      `peak RSS ${sync.peak_rss_mb.toFixed(0)} MB (target < 300); throttled ${(sync.throttled_share * 100).toFixed(2)}% of calls (target < 1%)\n`,
  );
  const ok = ratio >= 0.5 && sync.peak_rss_mb < 300 && sync.throttled_share < 0.01 && sync.variants === base.variants;
  process.exitCode = ok ? 0 : 1;
} finally {
  await cleanup();
}
